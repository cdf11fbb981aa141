"""Property-based fuzzing over HTTPS: malformed and random reviews never get a 5xx or kill the server."""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.mutate.test_patch_properties import json_values, random_workloads
from tests.webhook.reviews import review

FUZZ = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
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
    for key in draw(
        st.lists(st.sampled_from(["uid", "namespace", "dryRun", "subResource", "object", "oldObject"]), max_size=3)
    ):
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
@given(
    path=paths,
    raw=st.one_of(st.binary(max_size=300), json_values.map(orjson.dumps), st.text(max_size=200).map(str.encode)),
)
def test_random_bytes_are_answered_400_never_5xx(client, path, raw):
    status, _, data = client.request("POST", path, raw)
    if status == 200:
        check_answer(status, data, orjson.loads(raw))
    else:
        check_answer(status, data, None)


def test_the_server_still_answers_after_the_fuzzing(client):
    assert client.get("/healthz")[0] == 200 and client.get("/readyz")[0] == 200


# Hostile values (issue 11): quantities at and beyond every bound, integers beyond 64 bits,
# deep and wide objects, placed where the rules and the mutator read numbers.
hostile_quantities = st.one_of(
    st.sampled_from(
        [
            "1e999999",
            "1e999999999",
            "1e99999999999999999999",
            "8Ei",
            "16Ei",
            "-1e40",
            "1e-999999",
            "0." + "0" * 5000 + "1",
            "9" * 20_000,
            "1.5",
            "Infinity",
            "NaN",
            "",
            "1_000",
        ]
    ),
    st.from_regex(r"\A[+-]?[0-9]{1,60}(\.[0-9]{0,60})?([eE][+-]?[0-9]{1,22}|Ki|Ei|[numkMGTPE])?\Z"),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=False, allow_infinity=False),
)
huge_ints = st.one_of(
    st.integers(min_value=2**63 - 2, max_value=2**70), st.integers(min_value=-(10**300), max_value=10**300)
)


def deep(depth: int, leaf: object) -> object:
    for i in range(depth):
        leaf = [leaf] if i % 2 else {"k": leaf}
    return leaf


@st.composite
def hostile_reviews(draw):
    from tests.webhook.abuse import gpu_job

    job = gpu_job(draw(hostile_quantities), replicas=draw(st.one_of(st.integers(0, 8), huge_ints)))
    container = job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]
    container["resources"]["requests"] = {
        draw(st.sampled_from(["nvidia.com/gpu", "cpu", "memory"])): draw(hostile_quantities)
    }
    if draw(st.booleans()):
        job["spec"]["minAvailable"] = draw(huge_ints)
    shape = draw(st.sampled_from(["none", "deep", "wide"]))
    if shape == "deep":
        job["metadata"]["annotations"] = {"x": deep(draw(st.integers(10, 400)), 1)}
        job["spec"]["plugins"] = deep(draw(st.integers(10, 400)), "x")
    elif shape == "wide":
        job["metadata"]["labels"] = {f"l{i}": "v" for i in range(draw(st.integers(100, 5000)))}
    return review(job, operation=draw(st.sampled_from(["CREATE", "UPDATE"])), old=job if draw(st.booleans()) else None)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(path=paths, body=hostile_reviews())
def test_hostile_numbers_and_shapes_are_answered_quickly_and_never_5xx(client, path, body):
    import json
    import time

    started = time.perf_counter()
    status, _, data = client.request("POST", path, json.dumps(body).encode())
    assert time.perf_counter() - started < 1.0
    check_answer(status, data, body)
