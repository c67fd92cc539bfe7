"""Reading the table's own cards from camera frames."""
