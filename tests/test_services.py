"""The throwaway services the tests start: each answers, and is gone after its block."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from tests.services import PostgresDatabases, postgres_server, redis_server


def test_a_postgres_server_gives_each_test_its_own_database_and_stops(tmp_path: Path) -> None:
    with postgres_server(tmp_path) as server_url:
        databases = PostgresDatabases(server_url)
        with databases.database() as first, databases.database() as second:
            assert make_url(first).database != make_url(second).database
            engine = create_engine(first)
            with engine.begin() as connection:
                connection.execute(text("CREATE TABLE note (body text)"))
                connection.execute(text("INSERT INTO note VALUES ('sealed')"))
            with create_engine(second).connect() as connection:
                tables = connection.execute(text("SELECT tablename FROM pg_tables"))
                assert "note" not in tables.scalars().all()
            # The engine keeps its connection open: the database is dropped all the same.
        with pytest.raises(OperationalError, match="does not exist"):
            create_engine(first).connect()
        databases.close()
    with pytest.raises(OperationalError):
        engine.dispose()
        create_engine(server_url).connect()


def test_a_redis_server_answers_and_stops(tmp_path: Path) -> None:
    with redis_server(tmp_path) as url:
        client = redis.Redis.from_url(url)
        client.set("seal", "wax")
        assert client.get("seal") == b"wax"
        client.close()
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(url, socket_timeout=1).ping()
    assert not list(tmp_path.glob("*.rdb")), "it keeps nothing on disk"
