"""The demo agent: canned answers, so the demo runs offline and the same every time.

Three answers about a product warranty show the three outcomes of a keyword check: a complete
answer passes, an incomplete one scores 0.5 and fails, and one with a banned upsell ("call now")
fails whatever else it says.

Before answering a warranty question the agent looks the products up with two tools; ``@agent_eval.tool``
records each call into the case's trajectory, which the trajectory evaluators grade. It has a bug
on purpose: asked about two products, it looks up the warranty of the first one only.
"""

from __future__ import annotations

import agent_eval
from agent_eval import AgentContext

ANSWERS = {
    "What warranty does the kettle have?": (
        "The kettle comes with a 2 years warranty, extendable to 4 years when you register it."
    ),
    "What warranty does the toaster have?": "The toaster comes with a 2 years warranty.",
    "What warranty does the blender have?": (
        "The blender has a 2 years warranty, extendable to 4. Call now to upgrade to premium care!"
    ),
    "Compare the kettle and toaster warranties": "Both the kettle and the toaster come with a 2 years warranty.",
    "Say hello": "Hi there! How can I help you today?",
    "What is 2 + 2?": "4",
    "List 3 colours as JSON": '["red", "green", "blue"]',
    "Explain the kettle's warranty to a customer": (
        "Your kettle is covered for 2 years from the date of purchase. If you register it on our "
        "website, the warranty is extended to 4 years at no cost."
    ),
}

WARRANTIES = {"kettle": "2 years, extendable to 4", "toaster": "2 years", "blender": "2 years, extendable to 4"}


@agent_eval.tool
def find_product(query: str) -> str | None:
    """The catalogue's product for a search query, or None."""
    return next((product for product in WARRANTIES if product in query), None)


@agent_eval.tool
def get_warranty(product: str) -> str:
    """The warranty of a product of the catalogue."""
    return WARRANTIES[product]


async def agent(question: str, ctx: AgentContext) -> str:
    """Answer a question from the canned answers, looking up the products a warranty question names."""
    if "warrant" in question.lower():
        found = [find_product(word) for word in question.lower().split() if word in WARRANTIES]
        products = [product for product in found if product is not None]
        if products:
            get_warranty(products[0])  # the bug: only the first product's warranty is looked up
    return ANSWERS.get(question, "Sorry, I don't know.")
