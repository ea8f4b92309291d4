"""The sensitive-content guard (`service.retrieval.sensitive`): what it finds, flags and hides."""

from __future__ import annotations

import pytest

from service.retrieval.sensitive import Guard, luhn
from service.settings import SearchSettings

GUARD = Guard.build("redact", terms=SearchSettings().sensitive_terms, tags=SearchSettings().sensitive_tags)

SECRETS = {
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "github_token": "ghp_" + "a1B2" * 9,
    "openai_key": "sk-proj-" + "Xy9_" * 8,
    "anthropic_key": "sk-ant-api03-" + "q" * 30,
    "stripe_key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "slack_token": "xoxb-123456789012-abcdefghijkl",
    "google_api_key": "AIza" + "S" * 35,
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "card_number": "4111 1111 1111 1111",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_builtin_patterns_find_and_redact_each_secret(kind: str) -> None:
    text = f"before {SECRETS[kind]} after"
    spans = GUARD.spans(text)
    assert [s.kind for s in spans] == [kind]
    redacted = GUARD.redact(text)
    assert SECRETS[kind] not in redacted
    assert redacted == f"before [REDACTED:{kind}] after"


def test_card_numbers_need_the_luhn_check_and_a_card_length() -> None:
    assert luhn("4111111111111111") and not luhn("4111111111111112")
    assert GUARD.spans("order 4111-1111-1111-1112 shipped") == []
    assert GUARD.spans("call 1234 5678") == []
    assert GUARD.spans("isbn 9780306406157") == []  # 13 digits, fails Luhn
    text = "Card: 4111 1111 1111 1111 - exp 12 28, id 12345678901234567890123"
    assert GUARD.redact(text) == "Card: [REDACTED:card_number] - exp 12 28, id 12345678901234567890123"


def test_private_key_blocks_whole_and_cut_by_a_chunk_boundary() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nq83kd\n-----END RSA PRIVATE KEY-----"
    text = f"intro\n{block}\noutro"
    assert GUARD.redact(text) == "intro\n[REDACTED:private_key]\noutro"
    head = "intro\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA"
    assert GUARD.redact(head) == "intro\n[REDACTED:private_key]"
    tail = "AAAAB3NzaC1yc2EAAAADAQABAAABAQ\n-----END PRIVATE KEY-----\nafter"
    assert GUARD.redact(tail) == "[REDACTED:private_key]\nafter"


def test_secret_named_lines_hide_the_value_only() -> None:
    text = "---\ntitle: Router\npassword: hunter2\napi-key: 'abc'\ntoken:\n---\nPassword = letmein\n"
    out = GUARD.redact(text)
    assert "hunter2" not in out and "letmein" not in out and "abc" not in out
    assert "password: [REDACTED:secret_value]" in out and "title: Router" in out
    assert "token:\n" in out  # an empty value is no secret
    assert GUARD.spans("Note: the meeting is at noon") == []


def test_properties_secret_names_nested_maps_and_values() -> None:
    props = {"title": "x", "password": "hunter2", "db": {"Client-Secret": "s3"}, "notes": [SECRETS["jwt"]], "pwd": ""}
    assert GUARD.secret_properties(props) == ["password", "db.Client-Secret", "notes"]
    shown = GUARD.show_properties(props)
    assert shown["password"] == "[REDACTED:secret_value]" and shown["db"]["Client-Secret"].startswith("[REDACTED")
    assert shown["notes"] == ["[REDACTED:jwt]"] and shown["title"] == "x" and shown["pwd"] == ""
    assert GUARD.secret("plain body", props) and not GUARD.secret("plain body", {"title": "x"})


def test_sensitive_covers_secrets_and_health_or_money_topics() -> None:
    assert GUARD.topical("I paid the rent") and GUARD.sensitive("I paid the rent")
    assert GUARD.topical("costs $5") and not GUARD.topical("unpaid-ish words: spending")
    assert GUARD.topical("plain", tags=["#Health"]) and GUARD.topical("plain", heading="#mentalhealth")
    assert GUARD.sensitive("key AKIAIOSFODNN7EXAMPLE") and not GUARD.topical("key AKIAIOSFODNN7EXAMPLE")
    assert not GUARD.sensitive("a walk in the park", {"title": "x"}, ["travel"], "Day one")


def test_modes_decide_what_show_does() -> None:
    text = f"key {SECRETS['aws_access_key']}"
    flag = Guard.build("flag")
    assert flag.show(text) == text and not flag.redacts and not flag.excludes
    assert flag.show_properties({"password": "x"}) == {"password": "x"}
    exclude = Guard.build("exclude")
    assert exclude.redacts and exclude.excludes and "AKIA" not in exclude.show(text)


def test_configured_patterns_and_keys_add_to_or_replace_the_builtin_set() -> None:
    guard = Guard.build("redact", builtin=False, patterns={"employee_id": r"\bEMP-\d{6}\b"}, secret_keys=["vault"])
    out = guard.redact("id EMP-123456, aws AKIAIOSFODNN7EXAMPLE")
    assert out == "id [REDACTED:employee_id], aws AKIAIOSFODNN7EXAMPLE"
    assert guard.redact("vault: open sesame\npassword: x") == "vault: [REDACTED:secret_value]\npassword: x"


def test_overlapping_matches_merge_into_one_span() -> None:
    text = "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"
    spans = GUARD.spans(text)
    assert len(spans) == 1 and "eyJ" not in GUARD.redact(text)


def test_a_remembered_excerpt_scan_gives_the_same_answers_and_stays_bounded() -> None:
    guard = Guard.build("redact", terms=SearchSettings().sensitive_terms, tags=SearchSettings().sensitive_tags)
    texts = [f"token {SECRETS['github_token']} here", "my salary and the diagnosis", "nothing at all", "x" * 5000]
    first = [(guard.excerpt(t), guard.topical(t)) for t in texts]
    again = [(guard.excerpt(t), guard.topical(t)) for t in texts]
    assert first == again
    assert first[0][0] == GUARD.redact(texts[0]) != texts[0]
    assert first[1][1] is True and first[2] == ("nothing at all", False)
    assert set(guard.texts) == set(texts[:3])  # a whole note's worth of text is not kept
    assert guard.excerpt(texts[0], frozenset({"here"})).endswith("[REDACTED]")
    flag = Guard.build("flag")
    assert flag.excerpt(texts[0]) == texts[0]


# One secret for each hint of the builtin patterns (several hints share one test: `_probes`).
EVERY_HINT = [
    "AKIAIOSFODNN7EXAMPLE",
    "ASIAIOSFODNN7EXAMPLE",
    *(f"gh{c}_" + "a1B2" * 9 for c in "pousr"),
    "github_pat_" + "a1B2c3" * 4,
    "sk-ant-api03-" + "q" * 30,
    "sk-" + "Xy9z" * 6,
    "rk_live_" + "4eC39HqLyjWDarjt",
    "pk_test_" + "4eC39HqLyjWDarjt",
    "xoxp-123456789012-abcd",
    "AIza" + "S" * 35,
    "glpat-" + "x1" * 10,
    SECRETS["jwt"],
    "bearer " + "t0k3n" * 5,
    "BEARER " + "T0K3N" * 5,
]


@pytest.mark.parametrize("secret", EVERY_HINT)
def test_each_hint_of_a_builtin_pattern_still_runs_its_pattern(secret: str) -> None:
    """Hints only pick which patterns run: a guard that runs every pattern on every text finds
    the same spans, alone or among other hints' near misses and the long text around them."""
    every = Guard(mode=GUARD.mode, patterns=tuple((k, rx, ()) for k, rx, _ in GUARD.patterns))
    plain = Guard(mode=GUARD.mode, patterns=GUARD.patterns)
    for text in (
        f"before {secret} after",
        "gh_ sk- _live A-KIA eyJ earer xox glpat " * 50 + f"\n{secret}\n" + "plain words, 2024-01-05 " * 50,
    ):
        assert plain.spans(text) == every.spans(text) != []
    assert plain.spans("gh_ sk _live_x AKI EAR " * 20) == every.spans("gh_ sk _live_x AKI EAR " * 20) == []
