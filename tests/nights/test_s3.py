"""The store of nights on an S3-compatible server started on 127.0.0.1 (moto's server, pure
Python, from PyPI): append, replace, read and trend through ``s3://bucket/prefix``."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from moto.server import ThreadedMotoServer
from trajguard_testkit.nights import night

from trajguard.nights import open_location, read_nights, record_night, trend


@pytest.fixture
def s3_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for name, value in {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(
        Bucket="nights"
    )
    try:
        yield endpoint
    finally:
        server.stop()


def test_nights_round_trip_through_s3(s3_endpoint: str) -> None:
    url = "s3://nights/team/store"
    for i in range(5):
        record_night(url, night(f"n{i}", date=f"2026-12-0{i + 1}", seed=i))
    record_night(url, night("n4", date="2026-12-05", seed=40))  # replaces itself
    rows = read_nights(open_location(url), suite="demo")
    assert rows.drop_duplicates("night_id")["night_id"].tolist() == [f"n{i}" for i in range(5)]
    assert len(rows) == 10
    keys = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1").list_objects_v2(
        Bucket="nights", Prefix="team/store/"
    )["Contents"]
    assert sorted(k["Key"] for k in keys) == [
        f"team/store/suite=demo/date=2026-12-0{i + 1}/n{i}.parquet" for i in range(5)
    ]
    again = night("n4", seed=40).runs
    n4 = rows[(rows["night_id"] == "n4") & (rows["scenario"] == "capital")].iloc[0]
    assert n4["passes"] == int(again[again["scenario"] == "capital"]["passed"].sum())
    facts = trend(url, simulations=99)
    assert facts.nights == 5 and facts.store == url
    assert [s.scenario for s in facts.scenarios] == ["capital", "multiply"]
