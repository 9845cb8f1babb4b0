"""Reading hand-log files (CSV and XLSX) into frames of text cells."""
