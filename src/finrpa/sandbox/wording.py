"""Every visible label of the portals in Chinese and English, for layout v1 and its redesign v2.

docs/sandbox.md publishes the v1/v2 pairs (a unit test keeps it in step); the platform's synonym table is
built from it. A key maps to (zh, en) for v1 and optionally different (zh, en) for v2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Lang = Literal["zh", "en"]


@dataclass(frozen=True)
class Wording:
    zh: str
    en: str
    zh_v2: str = ""
    en_v2: str = ""

    def text(self, lang: Lang, layout: str) -> str:
        if layout == "v2":
            v2 = self.zh_v2 if lang == "zh" else self.en_v2
            if v2:
                return v2
        return self.zh if lang == "zh" else self.en


W = Wording
WORDING: dict[str, Wording] = {
    # shared
    "bank.title": W("沙箱银行 企业网上银行", "Sandbox Bank Corporate Online Banking"),
    "insurance.title": W("沙箱人寿 保险核心业务系统", "Sandbox Life Core Insurance System"),
    "securities.title": W("沙箱证券 机构业务平台", "Sandbox Securities Institutional Platform"),
    "login.heading": W("用户登录", "Sign in", "欢迎登录", "Welcome, please sign in"),
    "login.username": W("用户名", "Username", "登录账号", "Login ID"),
    "login.password": W("密码", "Password", "登录密码", "Login password"),
    "login.captcha": W("验证码", "Verification code", "附加码", "Security code"),
    "login.captcha_refresh": W("看不清，换一张", "Refresh image"),
    "login.submit": W("登录", "Sign in", "立即登录", "Sign in now"),
    "login.totp_heading": W("动态口令验证", "One-time password"),
    "login.totp": W("动态口令", "One-time password", "动态验证码", "Dynamic code"),
    "login.totp_submit": W("验证", "Verify", "确定", "Confirm"),
    "login.demo_hint": W("演示账号见首页", "Demo accounts are listed on the home page"),
    "logout": W("安全退出", "Sign out", "退出登录", "Log out"),
    "welcome": W("欢迎您", "Welcome"),
    "menu": W("功能菜单", "Menu"),
    "busy": W("系统繁忙，请稍后再试", "The system is busy, please try again later"),
    "back": W("返回", "Back"),
    "cancel": W("取消", "Cancel", "返回修改", "Go back and edit"),
    "confirm": W("确认", "Confirm", "确定", "OK"),
    "total_rows": W("共 {rows} 条记录，第 {page}/{pages} 页", "{rows} records, page {page} of {pages}"),
    "prev_page": W("上一页", "Previous", "前一页", "Prev"),
    "next_page": W("下一页", "Next", "后一页", "Next page"),
    "no_rows": W("没有符合条件的记录", "No records match the conditions"),
    "export_csv": W("导出CSV", "Export CSV", "下载CSV文件", "Download CSV"),
    "export_pdf": W("导出PDF", "Export PDF", "下载PDF文件", "Download PDF"),
    "datepicker.prev_month": W("上个月", "Previous month"),
    "datepicker.next_month": W("下个月", "Next month"),
    "datepicker.year": W("年份", "Year"),
    "datepicker.month": W("月份", "Month"),
    "datepicker.today": W("今天", "Today"),
    "datepicker.clear": W("清空", "Clear"),
    # bank menu and overview
    "bank.menu.overview": W("账户总览", "Account overview", "账户概览", "Accounts at a glance"),
    "bank.menu.statement": W("账户明细查询", "Statement query", "交易明细查询", "Transaction history"),
    "bank.menu.payment": W("对公付款", "Corporate payment", "对公转账", "Corporate transfer"),
    "bank.menu.records": W("付款记录", "Payment records", "转账记录查询", "Transfer history"),
    "bank.overview.caption": W("账户列表", "Accounts", "我的账户", "My accounts"),
    "bank.overview.detail": W("明细", "Details", "查看明细", "View details"),
    "bank.col.account": W("账号", "Account number", "账户号码", "Account no."),
    "bank.col.holder": W("户名", "Account name"),
    "bank.col.currency": W("币种", "Currency"),
    "bank.col.kind": W("账户类型", "Account type"),
    "bank.col.branch": W("开户行", "Branch"),
    "bank.col.balance": W("当前余额", "Current balance", "可用余额", "Available balance"),
    # bank statement
    "stmt.heading": W("账户明细查询", "Statement query", "交易明细查询", "Transaction history"),
    "stmt.form_title": W("查询条件", "Query conditions", "检索条件", "Search conditions"),
    "stmt.account": W("账号", "Account number", "账户号码", "Account no."),
    "stmt.start_date": W("开始日期", "Start date", "起始日期", "From date"),
    "stmt.end_date": W("结束日期", "End date", "截止日期", "To date"),
    "stmt.submit": W("查询", "Query", "检索", "Search"),
    "stmt.caption": W("交易明细", "Transaction details", "账户交易明细", "Account transaction details"),
    "stmt.col.date": W("交易日期", "Date", "记账日期", "Posting date"),
    "stmt.col.time": W("交易时间", "Time"),
    "stmt.col.summary": W("摘要", "Description", "用途摘要", "Purpose"),
    "stmt.col.counterparty": W("对方户名", "Counterparty", "对方账户名称", "Counterparty name"),
    "stmt.col.counterparty_account": W("对方账号", "Counterparty account"),
    "stmt.col.debit": W("借方金额", "Debit", "支出金额", "Money out"),
    "stmt.col.credit": W("贷方金额", "Credit", "收入金额", "Money in"),
    "stmt.col.balance": W("余额", "Balance", "账户余额", "Account balance"),
    "stmt.col.serial": W("流水号", "Serial no.", "交易流水号", "Transaction serial"),
    # bank payment
    "pay.heading": W("对公付款", "Corporate payment", "对公转账", "Corporate transfer"),
    "pay.payer_account": W("付款账号", "Payer account", "付款账户", "From account"),
    "pay.payee_name": W("收款人名称", "Payee name", "收款方户名", "Beneficiary name"),
    "pay.payee_account": W("收款账号", "Payee account", "收款方账号", "Beneficiary account"),
    "pay.payee_bank": W("收款银行", "Payee bank", "收款方开户行", "Beneficiary bank"),
    "pay.amount": W("金额", "Amount", "转账金额", "Transfer amount"),
    "pay.purpose": W("用途/附言", "Purpose / remark", "汇款附言", "Remittance remark"),
    "pay.submit": W("提交", "Submit", "下一步", "Next"),
    "pay.choose_bank": W("请选择", "Please choose"),
    "pay.confirm_title": W("确认付款信息", "Confirm payment", "请核对转账信息", "Check the transfer"),
    "pay.amount_words": W("金额大写", "Amount in words"),
    "pay.success": W("付款提交成功", "Payment submitted", "转账申请已受理", "Transfer accepted"),
    "pay.reference": W("交易流水号", "Reference number", "业务参考号", "Business reference"),
    "pay.status": W("状态", "Status"),
    "pay.status_done": W("交易成功", "Completed"),
    "pay.submitted_at": W("提交时间", "Submitted at", "交易时间", "Transaction time"),
    "pay.again": W("继续付款", "Make another payment", "继续转账", "New transfer"),
    "pay.duplicate": W(
        "该笔付款已提交，请勿重复提交。",
        "This payment was already submitted; do not submit it twice.",
    ),
    # bank payment records
    "records.heading": W("付款记录", "Payment records", "转账记录查询", "Transfer history"),
    "records.keyword": W("关键字", "Keyword", "查询内容", "Search text"),
    "records.keyword_hint": W("流水号/收款人/账号/附言", "Reference / payee / account / remark"),
    "records.submit": W("查询", "Search", "检索", "Find"),
    "records.caption": W("付款记录", "Payment records", "转账记录", "Transfers"),
    # insurance
    "ins.menu.apply": W("投保单录入", "New policy application", "新单投保", "New business"),
    "ins.menu.claim": W("理赔申请", "Claim application", "理赔报案", "Report a claim"),
    "ins.menu.search": W("保单查询", "Policy search", "保单检索", "Find a policy"),
    "ins.apply.heading": W("投保单录入", "New policy application", "新单投保", "New business"),
    "ins.applicant_name": W("投保人姓名", "Applicant name", "投保人", "Policyholder"),
    "ins.id_type": W("证件类型", "ID type", "证件种类", "Document type"),
    "ins.id_type.resident": W("居民身份证", "PRC resident ID card"),
    "ins.id_type.passport": W("护照", "Passport"),
    "ins.id_type.hkmo": W("港澳居民来往内地通行证", "Mainland travel permit (HK/Macao)"),
    "ins.id_number": W("证件号码", "ID number", "证件号", "Document number"),
    "ins.product": W("产品", "Product", "险种", "Insurance plan"),
    "ins.product_placeholder": W("请选择产品", "Choose a product", "请选择险种", "Choose a plan"),
    "ins.start_date": W("生效日期", "Effective date", "保险起期", "Cover starts"),
    "ins.end_date": W("终止日期", "Expiry date", "保险止期", "Cover ends"),
    "ins.beneficiaries": W("受益人信息", "Beneficiaries", "身故受益人", "Death beneficiaries"),
    "ins.bene.name": W("受益人姓名", "Beneficiary name", "受益人名称", "Beneficiary"),
    "ins.bene.relation": W("与被保险人关系", "Relation to insured", "关系", "Relationship"),
    "ins.bene.share": W("受益比例(%)", "Share (%)", "受益份额(%)", "Portion (%)"),
    "ins.bene.add": W("添加受益人", "Add beneficiary", "新增受益人", "New beneficiary"),
    "ins.bene.remove": W("删除", "Remove"),
    "ins.relation.spouse": W("配偶", "Spouse"),
    "ins.relation.child": W("子女", "Child"),
    "ins.relation.parent": W("父母", "Parent"),
    "ins.relation.other": W("其他", "Other"),
    "ins.apply.submit": W("提交投保", "Submit application", "提交", "Submit"),
    "ins.apply.success": W(
        "投保单提交成功", "Application submitted", "投保申请已受理", "Application accepted"
    ),
    "ins.application_no": W("投保单号", "Application number", "投保申请号", "Application reference"),
    "ins.claim.heading": W("理赔申请", "Claim application", "理赔报案", "Report a claim"),
    "ins.policy_no": W("保单号", "Policy number", "保单号码", "Policy no."),
    "ins.accident_date": W("出险日期", "Date of loss", "事故日期", "Incident date"),
    "ins.cause": W("出险原因", "Cause of loss", "事故原因", "Incident cause"),
    "ins.cause.accident": W("意外伤害", "Accident"),
    "ins.cause.illness": W("疾病", "Illness"),
    "ins.cause.property": W("财产损失", "Property damage"),
    "ins.cause.other": W("其他", "Other"),
    "ins.claim_amount": W("理赔金额", "Claim amount", "申请金额", "Amount claimed"),
    "ins.description": W("事故描述", "Description of the incident", "事故经过", "What happened"),
    "ins.claim.submit": W("提交理赔申请", "Submit claim", "提交", "Submit"),
    "ins.claim.success": W("理赔申请提交成功", "Claim submitted", "报案成功", "Claim reported"),
    "ins.claim_no": W("理赔编号", "Claim number", "报案号", "Claim reference"),
    "ins.search.heading": W("保单查询", "Policy search", "保单检索", "Find a policy"),
    "ins.search.query": W("保单号/投保人", "Policy number / policyholder", "检索关键字", "Search words"),
    "ins.search.submit": W("查询", "Search", "检索", "Find"),
    "ins.search.hint": W("输入保单号或投保人姓名", "Type a policy number or a policyholder's name"),
    "ins.search.results": W("查询结果", "Results", "检索结果", "Matches"),
    "ins.detail.heading": W("保单详情", "Policy details"),
    "ins.status": W("保单状态", "Status"),
    "ins.sum_insured": W("保额", "Sum insured"),
    "ins.premium": W("保费", "Premium"),
    # securities
    "sec.menu.report": W("合规报告报送", "Compliance report filing", "监管报送", "Regulatory filing"),
    "sec.menu.trades": W("成交记录查询", "Trade records", "成交查询", "Executions"),
    "sec.menu.order": W("委托下单", "Place an order", "普通委托", "New order"),
    "sec.report.heading": W("合规报告报送", "Compliance report filing", "监管报送", "Regulatory filing"),
    "sec.report_type": W("报告类型", "Report type", "报送类型", "Filing type"),
    "sec.report_type.quarterly": W("季度合规报告", "Quarterly compliance report"),
    "sec.report_type.annual": W("年度合规报告", "Annual compliance report"),
    "sec.report_type.aml": W("反洗钱工作报告", "Anti-money-laundering report"),
    "sec.report_type.incident": W("重大事项报告", "Material event report"),
    "sec.period": W("报告期间", "Reporting period", "所属期间", "Period"),
    "sec.attachment": W("附件", "Attachment", "上传文件", "Upload file"),
    "sec.remarks": W("备注", "Remarks", "说明", "Notes"),
    "sec.report.submit": W("提交", "Submit", "报送", "File"),
    "sec.report.success": W("报告报送成功", "Report filed", "报送成功", "Filing accepted"),
    "sec.report_no": W("报送编号", "Filing number", "回执编号", "Receipt number"),
    "sec.trades.heading": W("成交记录查询", "Trade records", "成交查询", "Executions"),
    "sec.start_date": W("开始日期", "Start date", "起始日期", "From date"),
    "sec.end_date": W("结束日期", "End date", "截止日期", "To date"),
    "sec.code_filter": W("证券代码", "Security code", "股票代码", "Stock code"),
    "sec.trades.submit": W("查询", "Query", "检索", "Search"),
    "sec.trades.caption": W("成交记录", "Trade records", "成交明细", "Execution details"),
    "sec.col.date": W("成交日期", "Trade date", "交易日期", "Date"),
    "sec.col.time": W("成交时间", "Time"),
    "sec.col.code": W("证券代码", "Code", "股票代码", "Stock code"),
    "sec.col.name": W("证券名称", "Name", "股票名称", "Stock name"),
    "sec.col.side": W("买卖方向", "Side", "交易方向", "Direction"),
    "sec.col.price": W("成交价格", "Price", "成交均价", "Average price"),
    "sec.col.quantity": W("成交数量", "Quantity"),
    "sec.col.amount": W("成交金额", "Amount"),
    "sec.col.commission": W("佣金", "Commission", "手续费", "Fees"),
    "sec.col.trade_no": W("成交编号", "Trade no."),
    "sec.order.heading": W("委托下单", "Place an order", "普通委托", "New order"),
    "sec.order.code": W("证券代码", "Security code", "股票代码", "Stock code"),
    "sec.order.side": W("买卖方向", "Side", "交易方向", "Direction"),
    "sec.side.buy": W("买入", "Buy"),
    "sec.side.sell": W("卖出", "Sell"),
    "sec.order.price": W("委托价格", "Limit price", "价格", "Price"),
    "sec.order.quantity": W("委托数量", "Quantity", "数量(股)", "Shares"),
    "sec.order.submit": W("下单", "Place order", "提交委托", "Submit order"),
    "sec.order.confirm_heading": W("委托确认", "Confirm the order", "请确认委托", "Please confirm"),
    "sec.order.confirm": W("确认下单", "Confirm order", "确认提交", "Confirm and submit"),
    "sec.order.success": W("委托已提交", "Order placed", "委托成功", "Order accepted"),
    "sec.order_no": W("委托编号", "Order number", "合同序号", "Contract number"),
    "sec.order.name": W("证券名称", "Security name", "股票名称", "Stock name"),
}


def text(key: str, lang: Lang, layout: str) -> str:
    """The label `key` in `lang` for `layout` (KeyError names a missing label: add it above)."""
    return WORDING[key].text(lang, layout)
