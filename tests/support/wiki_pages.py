"""A small XML export (a convention page, one without constraints, a redirect, a plain page) that
the CLI and build tests sync: a build of it takes a moment."""

from __future__ import annotations

import textwrap


EXPORT = textwrap.dedent(
    """\
    <mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="it">
      <siteinfo>
        <sitename>BridgePedia</sitename>
        <generator>MediaWiki 1.44.0</generator>
        <base>http://127.0.0.1:8080/index.php/Pagina_principale</base>
        <case>first-letter</case>
        <namespaces>
          <namespace key="0" case="first-letter" />
          <namespace key="10" case="first-letter">Template</namespace>
        </namespaces>
      </siteinfo>
      <page>
        <title>Splinter</title><ns>0</ns><id>7</id>
        <revision><id>70</id><timestamp>2026-10-01T10:00:00Z</timestamp>
          <text xml:space="preserve">{{Convenzione|shape_constraints=opener H:4+}}</text></revision>
        <revision><id>71</id><timestamp>2026-10-02T10:00:00Z</timestamp>
          <text xml:space="preserve">{{Convenzione|shape_constraints=opener H:5+ &lt;!-- ok --&gt;}}</text></revision>
      </page>
      <page>
        <title>Senza vincoli</title><ns>0</ns><id>8</id>
        <revision><id>80</id><timestamp>2026-10-03T10:00:00Z</timestamp>
          <text xml:space="preserve">{{convenzione|nome=x}}</text></revision>
      </page>
      <page>
        <title>Splinter (convenzione)</title><ns>0</ns><id>10</id><redirect title="Splinter" />
        <revision><id>100</id><timestamp>2026-10-03T10:00:00Z</timestamp>
          <text xml:space="preserve">#RINVIA [[Splinter]]</text></revision>
      </page>
      <page>
        <title>Storia</title><ns>0</ns><id>9</id>
        <revision><id>90</id><timestamp>2026-10-03T10:00:00Z</timestamp>
          <text xml:space="preserve">Solo storia.</text></revision>
      </page>
    </mediawiki>
    """
)

#: Two scenarios whose boards interleave, and a fit: the page's diagrams, links and scripts.
TWO_SCENARIOS = "opener H:5+ hcp:12-21 // major: opener S:5+ hcp:12-21; responder S:3+"


def synced_export(folder, dsl: str = TWO_SCENARIOS):
    """A state store synced from `EXPORT` with its convention page's DSL replaced by `dsl`
    (in `folder`); its path."""
    from bridgeshape_mirror.store.state import StateStore
    from bridgeshape_mirror.sync.dump import sync_from_dump
    from bridgeshape_mirror.sync.syncer import SyncSettings

    export = folder / "export.xml"
    export.write_text(EXPORT.replace("opener H:5+ &lt;!-- ok --&gt;", dsl), encoding="utf-8")
    state = folder / "state.sqlite"
    with StateStore(state) as store:
        sync_from_dump(export, store, SyncSettings())
    return state
