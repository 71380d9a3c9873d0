"""A URL that is not api.php (a front page, index.php): the page's EditURI link names the
real endpoint, used on the same host and suggested on another (issue 10). The real wiki's
front page is tried in tests/test_update_wiki.py; `responses` here for pages it won't serve."""

from __future__ import annotations

import pytest
import responses

from bridgeshape_mirror.sync.endpoint import advertised_api, find_api
from bridgeshape_mirror.sync.errors import BadSource

PAGE = '<html><head><link rel="EditURI" type="application/rsd+xml" href="{href}"/></head><body>Pagina</body></html>'


@pytest.mark.parametrize(
    ("href", "api"),
    [
        ("http://wiki.test/w/api.php?action=rsd", "http://wiki.test/w/api.php"),
        ("//wiki.test/w/api.php?action=rsd&amp;x=1", "https://wiki.test/w/api.php"),
        ("/w/api.php?action=rsd", "https://wiki.test/w/api.php"),
    ],
)
def test_the_edit_uri_link_is_read_and_made_absolute(href, api):
    assert advertised_api("https://wiki.test/wiki/Pagina_principale", PAGE.format(href=href)) == api


def test_no_link_or_no_api_php_is_none():
    assert advertised_api("http://x/", "<html><head><title>x</title></head></html>") is None
    assert advertised_api("http://x/", PAGE.format(href="http://x/feed.xml")) is None


@responses.activate
def test_an_endpoint_on_another_host_is_only_suggested():
    responses.add(responses.GET, "http://bridge.example/", body=PAGE.format(href="https://wiki.example/w/api.php?action=rsd"))
    with pytest.raises(BadSource, match=r"did you mean https://wiki\.example/w/api\.php"):
        find_api("http://bridge.example/", timeout=5, user_agent="t")


@responses.activate
def test_a_page_that_names_no_api_says_so():
    responses.add(responses.GET, "http://bridge.example/w/", status=404, body="<html>Not Found</html>")
    with pytest.raises(BadSource, match=r"not an api\.php URL, and the wiki at bridge\.example:80 answered HTTP 404"):
        find_api("http://bridge.example/w/", timeout=5, user_agent="t")
