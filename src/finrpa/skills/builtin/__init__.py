"""The built-in skills of FinRPA; importing this package registers them."""

from finrpa.skills.builtin.csv_merge import CsvMergeSkill
from finrpa.skills.builtin.file_download import FileDownloadSkill
from finrpa.skills.builtin.form_fill import FormFillSkill
from finrpa.skills.builtin.keep_alive import SessionKeepAliveSkill
from finrpa.skills.builtin.login import LoginSkill
from finrpa.skills.builtin.pagination import PaginationSkill
from finrpa.skills.builtin.search_select import SearchAndSelectSkill
from finrpa.skills.builtin.table_extract import TableExtractSkill

__all__ = [
    "CsvMergeSkill",
    "FileDownloadSkill",
    "FormFillSkill",
    "LoginSkill",
    "PaginationSkill",
    "SearchAndSelectSkill",
    "SessionKeepAliveSkill",
    "TableExtractSkill",
]
