"""agent-eval for pytest: suite files collected as one test per case, and the ``agent_eval_run`` fixture.

The plugin itself is :mod:`agent_eval_pytest.plugin` (entry point ``agent_eval`` in group ``pytest11``;
``-p no:agent_eval`` turns it off). Nothing is imported here, so loading the plugin stays free.
"""
