"""Presentation: matplotlib charts and the HTML report."""
