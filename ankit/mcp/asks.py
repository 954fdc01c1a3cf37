"""What ankit answers when a server asks something: its roots (the working folder) and elicitation (a question
for the user, through the Elicitor handed in: a short form in the REPL, declined with a line in -p).

Both eras go through here: a server of 2025-11-25 or before sends roots/list or elicitation/create as a request of
its own (`answer`); a 2026-07-28 server returns them as inputRequests of an InputRequiredResult (`inputs`).
"""

from pathlib import Path

from ankit.protocols import Elicitor
from ankit.safety.text import outside

MESSAGE_CAP = 2000  # characters of a server's question shown
FIELD_CAP, FIELDS_CAP = 300, 20  # characters of a field's title, description or choice; fields asked


class Asks:
    """One server's questions to ankit, and the capabilities that say which ankit answers."""

    def __init__(self, name: str, root: Path | None = None, elicit: Elicitor | None = None):
        self.name = name
        self.root = root
        self.elicit = elicit

    def capabilities(self) -> dict:
        """The client capabilities to declare: roots when there is a working folder, form elicitation when a user
        can be asked (or told it was declined)."""
        caps: dict = {}
        if self.root is not None:
            caps["roots"] = {}
        if self.elicit is not None:
            caps["elicitation"] = {"form": {}}
        return caps

    def answer(self, method: str, params: dict) -> dict | None:
        """The result for one of the server's requests, or None when ankit does not answer that method."""
        if method == "roots/list" and self.root is not None:
            return {"roots": [{"uri": self.root.as_uri(), "name": self.root.name or str(self.root)}]}
        if method == "elicitation/create" and self.elicit is not None:
            return self._elicit(params if isinstance(params, dict) else {})
        return None

    def inputs(self, requests) -> dict:
        """inputResponses for an InputRequiredResult's inputRequests (those ankit cannot answer are left out)."""
        out = {}
        for key, request in (requests.items() if isinstance(requests, dict) else []):
            if isinstance(request, dict) and isinstance(request.get("method"), str):
                result = self.answer(request["method"], request.get("params") or {})
                if result is not None:
                    out[key] = result
        return out

    def _elicit(self, params: dict) -> dict:
        if params.get("mode", "form") != "form":  # URL mode would send the user to a page: not offered
            return {"action": "decline"}
        schema = params.get("requestedSchema") if isinstance(params.get("requestedSchema"), dict) else {}
        result = self.elicit(self.name, outside(params.get("message") or "", MESSAGE_CAP), bounded(schema))
        return result if isinstance(result, dict) and result.get("action") in ("accept", "decline", "cancel") \
            else {"action": "cancel"}


def bounded(schema: dict) -> dict:
    """An elicitation's schema with what is shown of it through the text boundary: its first FIELDS_CAP fields,
    each name, title, description and choice capped."""
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    kept = {}
    for name, prop in list(props.items())[:FIELDS_CAP]:
        prop = dict(prop) if isinstance(prop, dict) else {}
        for key in ("title", "description"):
            if key in prop:
                prop[key] = outside(prop[key], FIELD_CAP, line=True)
        if isinstance(prop.get("enum"), list):
            prop["enum"] = [outside(c, FIELD_CAP, line=True) if isinstance(c, str) else c for c in prop["enum"][:50]]
        kept[outside(name, FIELD_CAP, line=True)] = prop
    return {**schema, "properties": kept}
