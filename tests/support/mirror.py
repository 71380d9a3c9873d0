"""What a published mirror must still be after a run that failed or was killed."""

from __future__ import annotations

import json
from pathlib import Path

import hashlib
from bridgeshape_mirror.site_builder.publish import MANIFEST


def intact(version: Path) -> bool:
    manifest = json.loads((version / MANIFEST).read_text())
    return all(hashlib.sha256((version / name).read_bytes()).hexdigest() == digest for name, digest in manifest.items())
