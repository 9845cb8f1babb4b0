"""The DuckDB database: connections, migrations, and the public views."""
