"""The validation report as wikitext, for the page of the wiki it is written to (`--report-page`):
the broken pages (nothing served), the stale ones (the last valid revision served), the titles
served by page id only; in the wiki's language. Every text that comes from a page (titles,
DSL values, the errors that quote them) is shown literally: escaped, then inside `<nowiki>`,
so no `{{`, `[[`, `~~~~`, `__NOINDEX__`, `<script>` or `</nowiki>` of a page is ever markup.
The text is a function of the report alone (no time of the run): a run that changed nothing
leaves the wiki page as it is."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bridgeshape_mirror.dsl import language
from bridgeshape_mirror.store.model import SiteInfo, parse_timestamp

from .analysis import PageAnalysis, local_errors

#: A page's DSL value and its errors, as the wiki page shows them at most (the mirror's
#: report has them all): a wiki page has a size limit, and a table cell is read at a glance.
SHOWN_CHARACTERS = 300
SHOWN_ERRORS = 10

_WHITE_SPACE = re.compile(r"\s")


@dataclass(frozen=True)
class WikiReport:
    """The report's wikitext (what goes between the page's markers) and the edit summary,
    both in `lang`, the wiki's language."""

    text: str
    summary: str
    lang: str


def literal(text: str) -> str:
    """`text` shown as it is on a wiki page, on one line: `&`, `<` and `>` as entities (so
    no tag, `</nowiki>` included, can be in it), inside `<nowiki>` (so nothing else is markup)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"<nowiki>{_WHITE_SPACE.sub(' ', text)}</nowiki>"


def link(title: str) -> str:
    """A plain link to `title` (the colon: a category or file is linked, never added or shown).
    A title cannot hold `[]{}|<>#`, but it can hold `~` (four of them are a signature when
    the page is saved), `'` (italics) and `&`: those go into the target as character
    references, which MediaWiki reads back as the characters."""
    target = title.replace("&", "&amp;").replace("~", "&#126;").replace("'", "&#39;")
    return f"[[:{target}|{literal(title)}]]"


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most] + "\u2026"


def wiki_report(
    analyses: list[PageAnalysis], report: Mapping[str, Any], site: SiteInfo, title_text: Mapping[str, str]
) -> WikiReport:
    """The wikitext of `report` (report.json's document) in the wiki's language (else English)."""
    lang = language.site_language(None, site.lang)
    _ = language.translations(lang).gettext
    by_id = {a.page.page_id: a for a in analyses}

    def when(timestamp: str | None) -> str:
        try:
            return language.when(parse_timestamp(timestamp or ""), lang)
        except ValueError:
            return timestamp or ""

    def table(rows: list[Mapping[str, Any]], stale: bool) -> list[str]:
        if not rows:
            return [_("None.")]
        head = [_("Page"), _("Value"), _("Errors"), _("Broken since"), _("Diff")]
        if stale:
            head.append(_("Revision served"))
        lines = ['{| class="wikitable"', "! " + " !! ".join(head)]
        for row in rows:
            a = by_id[row["pageId"]]
            assert a.current is not None  # a broken row's page has a value
            errors = local_errors(a.current.raw, lang)
            since = row["brokenSince"]
            lines += ["|-", f"| {link(row['title'])}", f"| <code>{literal(_cut(a.current.raw, SHOWN_CHARACTERS))}</code>", "|"]
            for e in errors[:SHOWN_ERRORS]:
                where = _("scenario %(scenario)s, line %(line)s, column %(column)s:") % {"scenario": e.scenario, "line": e.line, "column": e.column}
                lines.append(f"* {literal(where)} {literal(e.message)}")
            if len(errors) > SHOWN_ERRORS:
                lines.append("* " + literal(_("and %(n)s more (see the mirror's report)") % {"n": language.number(len(errors) - SHOWN_ERRORS, lang)}))
            lines.append("| " + literal(_("revision %(revid)s, %(time)s") % {"revid": since["revid"], "time": when(since["timestamp"])}))
            lines.append(f"| [[Special:Diff/{int(since['revid'])}|{literal(_('the edit that broke it'))}]]")
            if stale:
                lines.append(f"| [[Special:PermanentLink/{int(row['servingRevid'])}|{int(row['servingRevid'])}]]")
        lines.append("|}")
        return lines

    broken = [row for row in report["broken"] if row["servingRevid"] is None]
    stale = [row for row in report["broken"] if row["servingRevid"] is not None]
    titles = report["titlesWithoutFile"]
    lines = [f"== {literal(_('Broken DSL, never valid'))} ({len(broken)}) =="]
    lines += table(broken, stale=False)
    lines += ["", f"== {literal(_('Broken DSL, last valid revision still served'))} ({len(stale)}) =="]
    lines += table(stale, stale=True)
    lines += ["", f"== {literal(_('Titles served by page id only'))} ({len(titles)}) =="]
    if not titles:
        lines.append(_("None."))
    for row in titles:
        why = _(title_text[row["problem"]])
        other = f" “{literal(row['clashesWith'])}”" if row["clashesWith"] else ""
        lines.append(f"* {link(row['title'])} (<code>api/get/pageid/{int(row['pageId'])}.json</code>): {literal(why)}{other}")
    summary = _("Validation report: %(broken)s broken, %(stale)s stale") % {
        "broken": language.number(len(broken), lang), "stale": language.number(len(stale), lang)
    }
    return WikiReport("\n".join(lines), summary, lang)
