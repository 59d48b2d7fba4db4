"""Analysis: pandas tables of model results and of measured outcomes."""
