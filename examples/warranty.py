"""The demo agent: canned answers, so the demo runs offline and the same every time.

Three answers about a product warranty show the three outcomes of a keyword check: a complete
answer passes, an incomplete one scores 0.5 and fails, and one with a banned upsell ("call now")
fails whatever else it says.
"""

from __future__ import annotations

from agent_eval import AgentContext

ANSWERS = {
    "What warranty does the kettle have?": (
        "The kettle comes with a 2 years warranty, extendable to 4 years when you register it."
    ),
    "What warranty does the toaster have?": "The toaster comes with a 2 years warranty.",
    "What warranty does the blender have?": (
        "The blender has a 2 years warranty, extendable to 4. Call now to upgrade to premium care!"
    ),
    "Say hello": "Hi there! How can I help you today?",
    "What is 2 + 2?": "4",
    "List 3 colours as JSON": '["red", "green", "blue"]',
    "Explain the kettle's warranty to a customer": (
        "Your kettle is covered for 2 years from the date of purchase. If you register it on our "
        "website, the warranty is extended to 4 years at no cost."
    ),
}


async def agent(question: str, ctx: AgentContext) -> str:
    """Answer a question from the canned answers."""
    return ANSWERS.get(question, "Sorry, I don't know.")
