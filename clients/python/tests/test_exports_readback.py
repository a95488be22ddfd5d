"""Exports as researchers read them: POST /v1/exports through the SDK, every file downloaded by the SDK
(``download_export``: partition folders kept, each file checked against the manifest), then read in place
by DuckDB, pyarrow, pandas and polars, independent of the engine that wrote them
(services/exports/*.int.test.ts read them back with chDB). The reading example of docs/EXPORTS.md
("Reading an export") is run here as written, and what it leaves is checked; the e2e tier runs it too.
"""
from __future__ import annotations

import hashlib
import pathlib
import re
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import duckdb
import httpx
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from tapeline import CreateExportFilters, Tapeline

DOCS = pathlib.Path(__file__).resolve().parents[3] / "docs" / "EXPORTS.md"
# The queries of docs/EXPORTS.md, checked to be there word for word so the two cannot drift apart.
DUCKDB_COUNT = "SELECT count(*) FROM read_parquet(?, hive_partitioning = true)"
PYARROW_DATASET = 'ds.dataset(folder, format="parquet", partitioning="hive")'
# The demo's history is 48 hours (services/demo.ts), so this window spans three UTC days.
WINDOW = timedelta(hours=47)


@dataclass
class Downloaded:
    folder: pathlib.Path
    manifest: dict[str, Any]
    job_files: list[str]


def export_and_download(client: Tapeline, folder: pathlib.Path, dataset: str, filters: CreateExportFilters) -> Downloaded:
    """Creates the export, waits for its job, and downloads it with the SDK (``download_export``) into
    `folder` under the files' own names (`date=YYYY-MM-DD/part-0.parquet`)."""
    job = client.create_export(dataset=dataset, format="parquet", filters=filters)  # type: ignore[arg-type]
    deadline = time.monotonic() + 120
    while job.status in ("queued", "running"):
        assert time.monotonic() < deadline, f"export {job.id} still {job.status} after 120 s: {job.progress}"
        time.sleep(0.5)
        job = client.get_export(id=job.id)
    assert job.status == "succeeded", job.error
    assert job.manifest is not None and job.manifest.url is not None
    export = client.download_export(job.id, folder)
    assert [f.path for f in export.files] == [(folder / file.name).resolve() for file in job.files]
    # The links carry their own authorisation: the manifest read again with a plain client, no key.
    origin = client.base_url.removesuffix("/v1")  # the links are relative to the API's origin
    with httpx.Client(timeout=60) as plain:
        assert plain.get(origin + job.manifest.url).raise_for_status().json() == export.manifest
    return Downloaded(folder, export.manifest, [file.name for file in job.files])


def sha256(path: pathlib.Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def assert_files_match_manifest(export: Downloaded) -> None:
    manifest = export.manifest
    names = [file["name"] for file in manifest["files"]]
    assert names == export.job_files
    on_disk = sorted(str(p.relative_to(export.folder)) for p in export.folder.rglob("*") if p.is_file())
    assert on_disk == sorted(names)
    for file in manifest["files"]:
        path = export.folder / file["name"]
        assert path.stat().st_size == file["bytes"], file["name"]
        assert sha256(path) == file["sha256"], f"{file['name']}: SHA-256 differs from the manifest"
        # A file's row count in the manifest is what its Parquet footer says.
        assert pq.ParquetFile(path).metadata.num_rows == file["rows"], file["name"]
    assert manifest["rows"] == sum(file["rows"] for file in manifest["files"])
    assert manifest["bytes"] == sum(file["bytes"] for file in manifest["files"])


# The manifest states each column's ClickHouse type (api/exports-datasets.md); what each becomes once
# read. Nullable(T) is an optional Parquet column of T: every DuckDB column is nullable, Arrow keeps the
# difference (a required column is `not null`). DateTime64(3, 'UTC') is written as a UTC-adjusted
# millisecond timestamp, which DuckDB reads as TIMESTAMP WITH TIME ZONE and Arrow as
# timestamp[ms, tz=UTC]. A type missing here fails the test, so a new column type is mapped on purpose.
DUCKDB_TYPES = {"String": "VARCHAR", "Bool": "BOOLEAN", "Int16": "SMALLINT", "Int32": "INTEGER", "UInt64": "UBIGINT"}
ARROW_TYPES = {"String": pa.string(), "Bool": pa.bool_(), "Int16": pa.int16(), "Int32": pa.int32(), "UInt64": pa.uint64()}


def unwrap(clickhouse: str, wrapper: str) -> str | None:
    match = re.fullmatch(wrapper + r"\((.*)\)", clickhouse)
    return match[1] if match else None


def duckdb_type(clickhouse: str) -> str:
    if (inner := unwrap(clickhouse, "Nullable")) is not None:
        return duckdb_type(inner)
    if (inner := unwrap(clickhouse, "Array")) is not None:
        return duckdb_type(inner) + "[]"
    if match := re.fullmatch(r"Decimal\((\d+), (\d+)\)", clickhouse):
        return f"DECIMAL({match[1]},{match[2]})"
    if clickhouse == "DateTime64(3, 'UTC')":
        return "TIMESTAMP WITH TIME ZONE"
    return DUCKDB_TYPES[clickhouse]


def arrow_type(clickhouse: str) -> pa.DataType:
    if (inner := unwrap(clickhouse, "Nullable")) is not None:
        return arrow_type(inner)
    if (inner := unwrap(clickhouse, "Array")) is not None:
        return pa.list_(arrow_type(inner))
    if match := re.fullmatch(r"Decimal\((\d+), (\d+)\)", clickhouse):
        return pa.decimal128(int(match[1]), int(match[2]))
    if clickhouse == "DateTime64(3, 'UTC')":
        return pa.timestamp("ms", tz="UTC")
    return ARROW_TYPES[clickhouse]


def assert_duckdb_reads(export: Downloaded, time_column: str) -> None:
    glob = f"{export.folder}/**/*.parquet"
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    (count,) = con.execute(DUCKDB_COUNT, [glob]).fetchone()  # type: ignore[misc]
    assert count == export.manifest["rows"]
    described = con.execute("DESCRIBE SELECT * FROM read_parquet(?, hive_partitioning = true)", [glob]).fetchall()
    columns = [(name, kind) for name, kind, *_ in described]
    expected = [(column["name"], duckdb_type(column["type"])) for column in export.manifest["schema"]]
    # The Hive folder names add the partition column, typed DATE.
    assert columns == expected + [("date", "DATE")]
    per_day = con.execute(
        f"SELECT date, count(*), count_if(date <> CAST({time_column} AS DATE)) FROM read_parquet(?, hive_partitioning = true) GROUP BY date ORDER BY date",
        [glob],
    ).fetchall()
    assert [(f"date={day.isoformat()}/part-0.parquet", rows) for day, rows, _ in per_day] == [
        (file["name"], file["rows"]) for file in export.manifest["files"]
    ]
    assert all(misplaced == 0 for *_, misplaced in per_day), per_day


def assert_pyarrow_reads(export: Downloaded, time_column: str) -> pa.Table:
    folder = export.folder
    table = ds.dataset(folder, format="parquet", partitioning="hive").to_table()
    assert table.num_rows == export.manifest["rows"]
    expected = [(c["name"], arrow_type(c["type"]), c["type"].startswith("Nullable(")) for c in export.manifest["schema"]]
    # pyarrow's Hive partitioning infers the folder values' type: the dates stay strings.
    expected.append(("date", pa.string(), True))
    assert [(field.name, field.type, field.nullable) for field in table.schema] == expected
    days = zip(table.column("date").to_pylist(), table.column(time_column).to_pylist())
    assert all(day == at.date().isoformat() for day, at in days)
    assert export.manifest["compression"] == "zstd"
    for file in export.manifest["files"]:
        metadata = pq.ParquetFile(folder / file["name"]).metadata
        for group in range(metadata.num_row_groups):
            codecs = {metadata.row_group(group).column(c).compression for c in range(metadata.num_columns)}
            assert codecs == {"ZSTD"}, f"{file['name']} row group {group}: {codecs}"
    return table


def assert_pandas_and_polars_read(export: Downloaded) -> None:
    """pandas and polars read the folder with the manifest's row count and exact decimal amounts whose sums
    are DuckDB's to the last digit (a float column would round them)."""
    glob = f"{export.folder}/**/*.parquet"
    rows = export.manifest["rows"]
    usdc, shares = duckdb.connect().execute(
        "SELECT sum(size_usdc), sum(size_shares) FROM read_parquet(?, hive_partitioning = true)", [glob]
    ).fetchone()  # type: ignore[misc]
    assert isinstance(usdc, Decimal) and usdc > 0

    frame = pd.read_parquet(export.folder)
    assert len(frame) == rows
    assert all(isinstance(value, Decimal) for value in frame["size_usdc"]), frame["size_usdc"].dtype
    assert frame["size_usdc"].sum() == usdc and frame["size_shares"].sum() == shares
    assert sorted(frame["date"].astype(str).unique()) == sorted(f["name"][len("date="):][:10] for f in export.manifest["files"])

    lazy = pl.scan_parquet(glob, hive_partitioning=True)
    schema = lazy.collect_schema()
    assert schema["size_usdc"] == pl.Decimal(38, 6) and schema["date"] == pl.Date, schema
    assert lazy.select(pl.len(), pl.col("size_usdc").sum(), pl.col("size_shares").sum()).collect().row(0) == (rows, usdc, shares)


def docs_reading_example() -> str:
    """The Python block of docs/EXPORTS.md's "Reading an export", as written."""
    text = DOCS.read_text()
    section = text[text.index("## Reading an export") :]
    match = re.search(r"^```python\n(.*?)^```$", section, re.S | re.M)
    assert match, "docs/EXPORTS.md: no Python block under 'Reading an export'"
    return match[1]


def test_the_docs_show_the_queries_this_test_runs():
    docs = DOCS.read_text()
    assert DUCKDB_COUNT in docs and PYARROW_DATASET in docs


def test_the_docs_reading_example_runs_and_its_four_readers_agree(demo, monkeypatch):
    # As a reader runs it (`Tapeline()` from the environment), the market placeholder filled in.
    monkeypatch.setenv("TAPELINE_API_KEY", demo.tier2_key)
    monkeypatch.setenv("TAPELINE_BASE_URL", demo.base_url)
    code = docs_reading_example().replace("<condition id or slug>", demo.market_slug)
    scope: dict[str, Any] = {"__name__": "docs_reading_example"}
    exec(compile(code, f"{DOCS} (Reading an export)", "exec"), scope)
    # What it leaves: every reader counted the manifest's rows, and the three sums of the takers'
    # size_usdc are one exact decimal.
    manifest = scope["manifest"]
    assert manifest["dataset"] == "trades" and manifest["rows"] > 0
    assert [f.sha256 for f in scope["export"].files] == [f["sha256"] for f in manifest["files"]]
    assert scope["count"] == scope["table"].num_rows == len(scope["df"]) == manifest["rows"]
    usdc = scope["duckdb_usdc"]
    assert isinstance(usdc, Decimal) and usdc > 0
    for reader in ("pandas_usdc", "polars_usdc"):
        assert isinstance(scope[reader], Decimal) and scope[reader] == usdc, (reader, scope[reader], usdc)


@pytest.fixture(scope="module")
def window() -> tuple[datetime, datetime]:
    to = datetime.now(timezone.utc).replace(microsecond=0)
    return to - WINDOW, to


def test_a_trades_export_reads_back_in_duckdb_and_pyarrow_with_the_served_amounts(demo, window, tmp_path):
    start, end = window
    with Tapeline(demo.tier2_key, base_url=demo.base_url) as client:
        export = export_and_download(client, tmp_path, "trades", CreateExportFilters(market=demo.market_id, from_=start, to=end))
        assert export.manifest["dataset"] == "trades" and export.manifest["format"] == "parquet"
        assert export.manifest["rows"] > 0 and len(export.manifest["files"]) >= 2, export.manifest["files"]
        assert_files_match_manifest(export)
        assert_duckdb_reads(export, "timestamp")
        table = assert_pyarrow_reads(export, "timestamp")
        assert_pandas_and_polars_read(export)

        # The files against the REST tape: a few trades spread over the export, found by id among the
        # trades of their own millisecond, equal field by field (amounts as exact decimals). Chain
        # fills only: a Data API record is replaced once its chain fill is read, and leaves the tape.
        rows = [row for row in table.to_pylist() if row["origin"] == "chain"] or table.to_pylist()
        sample = rows[:: max(1, len(rows) // 5)][:6]
        assert sample
        for row in sample:
            at: datetime = row["timestamp"]
            served = client.list_market_trades(id=row["market_id"], role="all", from_=at, to=at + timedelta(milliseconds=1), limit=100)
            match = [trade for trade in served.data if trade.trade_id == row["trade_id"]]
            assert len(match) == 1, f"{row['trade_id']} is not served by GET /markets/{{id}}/trades"
            trade = match[0]
            for name in ("price", "size_shares", "size_usdc"):
                assert isinstance(row[name], Decimal) and row[name] == getattr(trade, name), name
            for name in ("size_shares_micro", "size_usdc_micro", "fee_micro"):
                served_micro = getattr(trade, name)
                assert row[name] == (None if served_micro is None else int(served_micro)), name
            for name in ("trade_id", "market_id", "market_title", "wallet", "role", "side", "outcome", "outcome_index"):
                assert row[name] == getattr(trade, name), name
            for name in ("fee_asset", "timestamp", "block_number", "log_index", "tx_hash", "origin", "source"):
                assert row[name] == getattr(trade, name), name


def test_a_candles_export_reads_back_in_duckdb_and_pyarrow(demo, window, tmp_path):
    start, end = window
    with Tapeline(demo.tier2_key, base_url=demo.base_url) as client:
        export = export_and_download(client, tmp_path, "candles", CreateExportFilters(market=demo.market_id, from_=start, to=end, interval="1h"))
        assert export.manifest["dataset"] == "candles" and export.manifest["rows"] > 0
        assert_files_match_manifest(export)
        assert_duckdb_reads(export, "bucket_start")
        table = assert_pyarrow_reads(export, "bucket_start")
        assert set(table.column("interval").to_pylist()) == {"1h"}


def wait_for_the_chain_at_its_head(client: Tapeline) -> None:
    deadline = time.monotonic() + 180
    while True:
        health = client.get_health()
        chain = health.chain
        if health.trade_coverage == "both_sides" and chain is not None and chain.lag_blocks == 0 and chain.pending_events == 0:
            return
        assert time.monotonic() < deadline, f"the demo's chain source is not at its head after 180 s: {chain}"
        time.sleep(1)


BUCKET = {"5m": timedelta(minutes=5), "1h": timedelta(hours=1), "1d": timedelta(days=1)}
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
CANDLE_FIELDS = ("bucket_start", "interval", "open", "high", "low", "close", "volume_usdc", "volume_shares", "trade_count", "origin")


@pytest.mark.parametrize("interval", ["5m", "1h", "1d"])
def test_a_candles_export_equals_get_ohlcv_bucket_for_bucket(demo, tmp_path, interval):
    # Both take the buckets that start in from..to, and a bucket's trades to its end, so the window ends on
    # a bucket boundary ten minutes back: every bucket compared has ended and its source (chain or Data
    # API, by the chain's coverage) no longer changes between the export and the request.
    # Each bucket's source follows the chain source's coverage, which grows while the demo's chain is
    # catching up (a bucket inside it is the chain's): both are read once the chain is at its head.
    step = BUCKET[interval]
    with Tapeline(demo.tier2_key, base_url=demo.base_url) as client:
        wait_for_the_chain_at_its_head(client)
        to = EPOCH + ((datetime.now(timezone.utc) - timedelta(minutes=10) - EPOCH) // step) * step
        start = to - (timedelta(days=2) if interval == "1d" else WINDOW)
        filters = CreateExportFilters(market=demo.market_id, from_=start, to=to, interval=interval)
        export = export_and_download(client, tmp_path, "candles", filters)
        served = client.get_market_ohlcv(id=demo.market_id, interval=interval, from_=start, to=to, limit=1000)
    assert 0 < len(served) < 1000  # every bucket of the window, none cut by the limit
    rows = sorted(ds.dataset(tmp_path, format="parquet", partitioning="hive").to_table().to_pylist(), key=lambda r: r["bucket_start"])
    assert {row["market_id"] for row in rows} == {demo.market_id}
    exported = [tuple(row[name] for name in CANDLE_FIELDS) for row in rows]
    expected = [tuple(getattr(candle, name) for name in CANDLE_FIELDS) for candle in served]
    # Every bucket, open/high/low/close/volumes as exact decimals, trade count and source equal.
    assert exported == expected
    assert all(isinstance(row["close"], Decimal) and isinstance(row["volume_usdc"], Decimal) for row in rows)
