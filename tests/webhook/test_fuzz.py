"""Property-based fuzzing over HTTPS: malformed and random reviews never get a 5xx or kill the server."""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.mutate.test_patch_properties import json_values, random_workloads
from tests.webhook.reviews import review

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.function_scoped_fixture])
paths = st.sampled_from(["/validate", "/mutate"])
operations = st.sampled_from(["CREATE", "UPDATE", "DELETE", "CONNECT", "", None, 7])


@st.composite
def random_reviews(draw):
    """Reviews whose envelope, request fields and object are each sometimes wrong."""
    obj = draw(st.one_of(random_workloads(), json_values))
    body = review(obj if isinstance(obj, dict) else None, operation=draw(operations))
    if not isinstance(obj, dict):
        body["request"]["object"] = obj
    request = body["request"]
    for key in draw(st.lists(st.sampled_from(["uid", "namespace", "dryRun", "subResource", "object", "oldObject"]), max_size=3)):
        request[key] = draw(json_values)
    if draw(st.booleans()):
        body[draw(st.sampled_from(["apiVersion", "kind", "request"]))] = draw(json_values)
    return body


def check_answer(status: int, data: bytes, sent: dict | None) -> None:
    assert status in (200, 400), (status, data[:300])
    answer = orjson.loads(data)
    if status == 400:
        assert isinstance(answer["error"], str) and answer["error"]
        return
    response = answer["response"]
    assert response["uid"] == sent["request"]["uid"]
    assert response.get("status", {}).get("code") != 500, response["status"]["message"]


@FUZZ
@given(path=paths, body=random_reviews())
def test_random_reviews_are_answered_200_or_400_never_5xx(client, path, body):
    status, _, data = client.request("POST", path, orjson.dumps(body))
    check_answer(status, data, body)


@FUZZ
@given(path=paths, raw=st.one_of(st.binary(max_size=300), json_values.map(orjson.dumps),
                                 st.text(max_size=200).map(str.encode)))
def test_random_bytes_are_answered_400_never_5xx(client, path, raw):
    status, _, data = client.request("POST", path, raw)
    if status == 200:
        check_answer(status, data, orjson.loads(raw))
    else:
        check_answer(status, data, None)


def test_the_server_still_answers_after_the_fuzzing(client):
    assert client.get("/healthz")[0] == 200 and client.get("/readyz")[0] == 200
