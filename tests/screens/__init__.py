"""The screen checker (issue [9]): tests/screens/checker.js judges a rendered page; harness.py drives a stress room."""
