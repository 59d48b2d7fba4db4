"""Presentation: matplotlib charts and the HTML report.

Imported in a notebook's kernel, it shows every table's missing values as a dash (:mod:`probe_lib.present.no_value`).
"""

from probe_lib.present import no_value

no_value.show_in_notebook()
