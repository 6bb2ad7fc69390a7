"""Which browser actions an LLM proposes are reads and which change the portal (and so pass the full gate),
the business operation a governed action performs, and when an approval given for an operation covers the
confirm step that completes it (same subtask, operation and values, in the dialog the approved action opened)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from finrpa.agents.llm_actions import ActionRequest, PlannedAction, TypedValue
from finrpa.agents.plan import SubTask
from finrpa.browser import Fingerprint
from finrpa.policy.run_policy import NodeCall
from finrpa.risk.levels import RiskLevel
from finrpa.risk.service import RiskAssessor
from finrpa.runs.goal_runs import ActionClassifier, ApprovedOperation

SUBTASK = SubTask(subtask_id="pay", index=1, goal="填写并提交对公付款")
TYPED = (
    TypedValue("收款人名称", "{{payee_name}}", "杭州示例电子商务有限公司"),
    TypedValue("金额", "{{amount}}", "1500000.00"),
)
DIALOG = "确认付款信息 收款人名称 杭州示例电子商务有限公司 金额 1,500,000.00 金额大写 壹佰伍拾万元整"


@pytest.fixture(scope="module")
def classifier() -> ActionClassifier:
    return ActionClassifier(RiskAssessor())


def click(name: str, *, role: str = "button", container: str = "", target_type: str | None = None,
          typed: tuple[TypedValue, ...] = (), title: str = "对公付款", dialog: str = "",
          subtask: SubTask = SUBTASK) -> ActionRequest:  # fmt: skip
    planned = PlannedAction(kind="click", fingerprint=Fingerprint(role=role, name=name, container=container),
                            target_type=target_type)  # fmt: skip
    return ActionRequest(subtask, planned, "http://bank.test/bank/payment", title, dialog_text=dialog,
                         dialog_kind="modal" if dialog else None, typed=typed)  # fmt: skip


def other(kind: str, *, key: str | None = None, title: str = "", dialog: str = "",
          dialog_kind: str | None = None) -> ActionRequest:  # fmt: skip
    return ActionRequest(SUBTASK, PlannedAction(kind=kind, key=key), "http://bank.test/x", title,
                         dialog_text=dialog, dialog_kind=dialog_kind)  # fmt: skip


@pytest.mark.parametrize(
    ("request_", "governed"),
    [
        (click("提交", target_type="submit"), True),
        (click("确认", container="确认付款信息"), True),
        (click("保存"), True),  # a generic change
        (click("下一步", target_type="submit"), True),  # a submit button submits its form, whatever its words
        (click("查询"), False),
        (click("取消"), False),
        (click("对公付款", role="link"), False),  # a menu entry naming an operation only opens a page
        (click("下一页", role="link"), False),
        (click("删除"), True),
        (other("press", key="Enter", title="对公付款"), True),
        (other("press", key="Enter", title="交易明细查询"), False),
        (other("press", key="Escape", title="对公付款"), False),
        (other("accept_dialog", dialog="确定要继续吗？", dialog_kind="confirm"), True),
        (other("accept_dialog", dialog="保存成功", dialog_kind="alert"), False),
        (other("dismiss_dialog", dialog="确定要继续吗？", dialog_kind="confirm"), False),
        (other("navigate"), False),
        (other("scroll"), False),
        (other("extract"), False),
    ],
)
def test_what_can_change_the_portal(classifier: ActionClassifier, request_: ActionRequest, governed: bool) -> None:
    assert classifier.changes_portal(request_) is governed


def test_the_operation_is_named_by_the_action_then_its_values_form_and_page(classifier: ActionClassifier) -> None:
    assert classifier.operation(click("确认付款")) == "payment.submit"
    assert classifier.operation(click("提交", container="对公付款")) == "payment.submit"
    assert classifier.operation(click("提交", title="交易密码修改")) == "credential.change"
    assert classifier.operation(click("确认", dialog=DIALOG)) == "payment.submit"
    assert classifier.operation(click("删除", title="收款人管理")) == "record.delete"
    assert classifier.operation(click("保存", title="资料")) == "click", "no operation named: the action kind"


def approved(level: RiskLevel = RiskLevel.CRITICAL) -> ApprovedOperation:
    return ApprovedOperation("ap1", "pay", "payment.submit", "bank.test", {t.field: t.shown() for t in TYPED},
                             Decimal("1500000.00"), level, "")  # fmt: skip


def node(amount: str = "1500000.00", operation: str = "payment.submit") -> NodeCall:
    return NodeCall(node_id="pay", operation=operation, effect="irreversible", amount_cny=Decimal(amount))


def test_the_confirm_step_with_the_same_values_is_covered(classifier: ActionClassifier) -> None:
    confirm = click("确认", container="确认付款信息", typed=TYPED, dialog=DIALOG)
    assert approved().covers(confirm, node(), "bank.test", RiskLevel.CRITICAL, classifier)
    accept = ActionRequest(SUBTASK, PlannedAction(kind="accept_dialog"), "http://bank.test/bank/payment", "对公付款",
                           dialog_text="确认付款 1,500,000.00 元？", dialog_kind="confirm", typed=TYPED)  # fmt: skip
    assert approved().covers(accept, node(), "bank.test", RiskLevel.CRITICAL, classifier)


def test_anything_else_needs_its_own_approval(classifier: ActionClassifier) -> None:
    confirm = click("确认", container="确认付款信息", typed=TYPED, dialog=DIALOG)
    changed = (TYPED[0], TypedValue("金额", "{{amount}}", "1600000.00"))
    assert not approved().covers(click("确认", typed=changed, dialog=DIALOG), node("1600000.00"), "bank.test",
                                 RiskLevel.CRITICAL, classifier), "other values"  # fmt: skip
    assert not approved().covers(confirm, node(operation="record.delete"), "bank.test", RiskLevel.CRITICAL,
                                 classifier), "another operation"  # fmt: skip
    assert not approved().covers(confirm, node(), "other.test", RiskLevel.CRITICAL, classifier), "another host"
    elsewhere = click("确认", typed=TYPED, dialog=DIALOG, subtask=SUBTASK.model_copy(update={"subtask_id": "pay2"}))
    assert not approved().covers(elsewhere, node(), "bank.test", RiskLevel.CRITICAL, classifier), "another subtask"
    again = click("提交", target_type="submit", typed=TYPED)
    assert not approved().covers(again, node(), "bank.test", RiskLevel.CRITICAL, classifier), "not in a dialog"
    same_dialog = approved().__class__(**{**approved().__dict__, "dialog_text": DIALOG})
    assert not same_dialog.covers(confirm, node(), "bank.test", RiskLevel.CRITICAL, classifier), "no new dialog"
    delete = click("删除", typed=TYPED, dialog=DIALOG)
    assert not approved().covers(delete, node(), "bank.test", RiskLevel.CRITICAL, classifier), "not a confirm"
    wrong = click("确认", typed=TYPED, dialog=DIALOG.replace("1,500,000.00", "2,500,000.00"))
    assert not approved().covers(wrong, node(), "bank.test", RiskLevel.CRITICAL, classifier), "dialog says more"
    assert not approved(RiskLevel.HIGH).covers(confirm, node(), "bank.test", RiskLevel.CRITICAL, classifier)
