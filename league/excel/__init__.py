"""Excel imports: bounded reading of uploaded workbooks and the uploads waiting for confirmation."""
