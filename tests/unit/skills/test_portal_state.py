"""What a portal says after a failed submit reaches an error report masked, and in a readable sentence."""

from __future__ import annotations

from finrpa.browser import SecretText
from finrpa.skills.builtin.form_fill import FormRejectedError, _rejected
from finrpa.skills.portal_state import PortalReply, mask_values


def test_secret_and_sensitive_values_are_masked_wherever_the_portal_echoes_them() -> None:
    text = "账号 6222-0001 的交易密码 864209 错误，请联系 6222-0001 开户行"
    masked = mask_values(text, [SecretText("864209"), "6222-0001"])
    assert masked == "账号 ****** 的交易密码 ****** 错误，请联系 ****** 开户行"


def test_a_value_containing_another_is_masked_whole_and_blank_values_mask_nothing() -> None:
    assert mask_values("备注 客户 0421 无效", ["0421", "客户 0421", "", "  "]) == "备注 ****** 无效"


def test_alerts_are_the_portals_answer_and_status_lines_only_inform() -> None:
    assert (
        PortalReply(alerts=("请修正以下错误后重新提交。", "附言过长")).describe()
        == "请修正以下错误后重新提交。; 附言过长"
    )
    assert PortalReply(statuses=("壹佰元整",)).describe() == "the page shows: 壹佰元整"
    assert PortalReply(unreadable="closed").describe() == "its messages could not be read (closed)"
    assert PortalReply().describe() == ""


def test_a_rejection_is_one_sentence_that_says_what_to_do_and_is_not_retryable() -> None:
    error = _rejected("用途/附言不能超过 50 个字符。")
    assert isinstance(error, FormRejectedError)
    assert error.message == (
        "The portal did not accept the form: 用途/附言不能超过 50 个字符。 Correct the input and submit again."
    )
    assert _rejected("amount too large").message.startswith("The portal did not accept the form: amount too large. ")
    result = error.to_result()
    assert (result.error_code, result.retryable, result.needs_human) == ("form_rejected", False, False)
