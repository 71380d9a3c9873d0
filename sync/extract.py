"""Read the shape_constraints parameter out of a page's wikitext, with mwparserfromhell.

The template is found however it is spelled (`{{convenzione`, `{{Template:Convenzione`,
`{{ Convenzione_ |`), since MediaWiki normalises the name before looking it up. When a
parameter is given twice MediaWiki uses the last one, and so do we.
"""

from __future__ import annotations

from dataclasses import dataclass

import mwparserfromhell
from mwparserfromhell.nodes import Comment, Template
from mwparserfromhell.wikicode import Wikicode

from bridgeshape_mirror.store.model import Problem, SiteInfo

from .titles import normalise

TEMPLATE_NAMESPACE = 10


@dataclass(frozen=True)
class Extraction:
    raw: str | None
    problems: tuple[Problem, ...]
    instances: int


def _without_comments(code: Wikicode) -> str:
    return "".join(str(node) for node in code.nodes if not isinstance(node, Comment))


def template_title(name: str, site: SiteInfo) -> str:
    """The full normalised title of a template name as written in configuration or a page."""
    return normalise(name, site, default_namespace=TEMPLATE_NAMESPACE)[1]


def find_templates(text: str, template: str, site: SiteInfo) -> list[Template]:
    """Instances of `template` (a normalised full title) in `text`, in page order.

    What stands inside `<includeonly>` is not part of the page itself (only of pages that
    transclude it), so it does not count.
    """
    code = mwparserfromhell.parse(text)
    for tag in code.filter_tags(recursive=True, matches=lambda node: str(node.tag).strip().lower() == "includeonly"):
        try:
            code.remove(tag)
        except ValueError:  # already gone with an enclosing includeonly
            pass
    found = []
    for node in code.filter_templates(recursive=True):
        name = _without_comments(node.name).strip()
        if "{" in name or "|" in name:  # built from another template or a parser function
            continue
        if template_title(name, site) == template:
            found.append(node)
    return found


def extract(text: str, template: str, parameter: str, site: SiteInfo) -> Extraction:
    instances = find_templates(text, template, site)
    if not instances:
        return Extraction(None, (Problem.NO_TEMPLATE,), 0)
    problems: list[Problem] = []
    if len(instances) > 1:
        problems.append(Problem.DUPLICATE_TEMPLATE)
    # MediaWiki ignores comments and white space around a parameter name, and the last of
    # several parameters with one name wins.
    matching = [p for p in instances[0].params if _without_comments(p.name).strip() == parameter]
    if not matching:
        return Extraction(None, (*problems, Problem.NO_PARAMETER), len(instances))
    # Comments anywhere in the value, nested ones included, are not part of it.
    value = mwparserfromhell.parse(str(matching[-1].value))
    for comment in value.filter_comments(recursive=True):
        value.remove(comment)
    raw = str(value).strip(" \t\r\n")
    if not raw:
        return Extraction(None, (*problems, Problem.EMPTY_VALUE), len(instances))
    return Extraction(raw, tuple(problems), len(instances))
