"""Pure, deterministic rules of the games Pečeť hosts (see ``engine/core.py``)."""
