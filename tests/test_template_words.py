"""Templates translate with ``app.pages.template_gettext``: the very text Jinja's own
new-style ``gettext`` gives, in every language, escaped alike, its fixed words kept per
language."""

from __future__ import annotations

import pytest
from jinja2.ext import _gettext_alias, _make_new_gettext

from app import i18n, pages

SNIPPETS = [
    '{{ _("Sealed") }}',
    '{{ _("Round %(r)s of %(n)s", r=3, n=12) }}',
    '{{ _("Hello %(name)s", name="<b>Ann & Ben</b>") }}',
    '{{ _("100%% sure") }}',
    '{{ gettext("The map") }}',
    "{% trans %}Setup{% endtrans %}",
    '{% trans who="<i>x</i>" %}Paused by {{ who }}{% endtrans %}',
    '<p title="{{ _(\'The map\') }}">{{ _("Setup") }}</p>',
]


def rendered(source: str, lang: str, *, jinjas_own: bool, autoescape: bool = True) -> str:
    environment = pages.environment.overlay(autoescape=autoescape)
    # Per template: an overlay shares its environment's globals.
    own = {"_": _gettext_alias, "gettext": _make_new_gettext(i18n.gettext)} if jinjas_own else {}
    with i18n.use_language(lang):
        return environment.from_string(source, globals=own).render()


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("source", SNIPPETS)
def test_the_same_words_as_jinjas_own_gettext(source: str, lang: str) -> None:
    for autoescape in (True, False):
        ours = rendered(source, lang, jinjas_own=False, autoescape=autoescape)
        theirs = rendered(source, lang, jinjas_own=True, autoescape=autoescape)
        assert ours == theirs, (source, lang, autoescape)


def test_templates_use_ours() -> None:
    assert pages.environment.globals["_"] is pages.template_gettext
    assert pages.environment.globals["gettext"] is pages.template_gettext


def test_fixed_words_follow_the_language_asked_for() -> None:
    words = {lang: rendered('{{ _("Setup") }}', lang, jinjas_own=False) for lang in i18n.LANGUAGES}
    assert words["en"] == "Setup"
    assert words["cs"] != "Setup" and words["ru"] != "Setup" and words["hr"] != "Setup"
    again = {lang: rendered('{{ _("Setup") }}', lang, jinjas_own=False) for lang in i18n.LANGUAGES}
    assert again == words
