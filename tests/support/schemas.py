"""The published JSON schemas (site_builder/schemas), as the tests hold documents to them."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema
from referencing import Registry, Resource

SCHEMAS = Path(__file__).resolve().parents[2] / "site_builder" / "schemas"


@cache
def _registry() -> Registry:
    return Registry().with_resources((p.name, Resource.from_contents(json.loads(p.read_text()))) for p in SCHEMAS.glob("*.json"))


def check_schema(schema_name: str, document) -> None:
    """Raise jsonschema's ValidationError when `document` does not match schema `schema_name`."""
    schema = json.loads((SCHEMAS / schema_name).read_text())
    jsonschema.Draft202012Validator(schema, registry=_registry()).validate(document)
