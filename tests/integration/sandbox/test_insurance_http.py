"""Insurance portal over HTTP: application (ID checksum, beneficiaries), claims, policy search and detail."""

from __future__ import annotations

import json
from datetime import timedelta

from fastapi.testclient import TestClient

from finrpa.sandbox.policies import policy_book
from tests.integration.sandbox.portal import alerts, form_token, login, sandbox_client

APPLICATION = {
    "applicantName": "张晓华",
    "idType": "resident",
    "idNumber": "11010519491231002X",
    "productCode": "MD05",
    "effectiveDate": "2025-07-01",
    "expiryDate": "2026-06-30",
    "beneficiaries": json.dumps([{"name": "李娜", "relation": "spouse", "share": "100"}]),
}


def _insurance(**switches: object) -> TestClient:
    client = sandbox_client(**switches)
    login(client, "insurance", "agent_demo")
    return client


def _apply(client: TestClient, **changes: str) -> str:
    token = form_token(client.get("/insurance/apply").text)
    return client.post("/insurance/apply", data=APPLICATION | {"formToken": token} | changes).text


def test_an_id_number_failing_its_check_digit_is_refused_in_the_page() -> None:
    page = _apply(_insurance(), idNumber="110105194912310021")
    assert "证件号码校验失败，请核对身份证号码。" in alerts(page)


def test_beneficiary_shares_must_add_up_to_one_hundred() -> None:
    client = _insurance()
    halves = json.dumps(
        [
            {"name": "李娜", "relation": "spouse", "share": "50"},
            {"name": "张三", "relation": "child", "share": "40"},
        ]
    )
    assert "受益比例合计必须为 100%。" in alerts(_apply(client, beneficiaries=halves))
    assert "请至少填写一位受益人。" in alerts(_apply(client, beneficiaries="[]"))
    unnamed = json.dumps([{"name": "", "relation": "spouse", "share": "100"}])
    assert "受益人信息不完整，请填写姓名、关系和比例。" in alerts(_apply(client, beneficiaries=unnamed))


def test_unknown_product_and_reversed_dates_are_refused() -> None:
    page = _apply(_insurance(), productCode="XX99", expiryDate="2025-06-30")
    assert "请从列表中选择产品。" in alerts(page)
    assert "终止日期必须晚于生效日期。" in alerts(page)


def test_application_gets_a_number_and_is_recorded_once() -> None:
    client = _insurance()
    token = form_token(client.get("/insurance/apply").text)
    first = client.post("/insurance/apply", data=APPLICATION | {"formToken": token})
    assert "投保单提交成功" in first.text and "TB20250616000001" in first.text
    again = client.post("/insurance/apply", data=APPLICATION | {"formToken": token})
    assert "该业务已提交，请勿重复提交。" in again.text
    applications = client.get("/__sandbox__/state").json()["applications"]
    assert len(applications) == 1
    assert applications[0]["product_name"] == "百万医疗保险"
    assert applications[0]["beneficiaries"] == [{"name": "李娜", "relation": "spouse", "share": 100}]


def test_the_beneficiary_iframe_document_keeps_rows_after_an_error() -> None:
    client = _insurance()
    page = _apply(client, idNumber="bad")
    assert '<iframe id="pg' not in page and 'title="受益人信息"' in page
    frame = client.get("/insurance/apply/beneficiaries", params={"rows": APPLICATION["beneficiaries"]}).text
    assert 'value="李娜"' in frame and "添加受益人" in frame


def test_v2_accepts_the_renamed_fields() -> None:
    client = _insurance(layout="v2")
    token = form_token(client.get("/insurance/apply").text)
    v2 = {
        "holderName": "张晓华",
        "certType": "resident",
        "certNo": "11010519491231002X",
        "planCode": "PA01",
        "coverFrom": "2025-07-01",
        "coverTo": "2026-06-30",
        "beneList": APPLICATION["beneficiaries"],
        "txnToken": token,
    }
    assert "投保申请已受理" in client.post("/insurance/apply", data=v2).text


def _claim(client: TestClient, **fields: str) -> str:
    token = form_token(client.get("/insurance/claim").text)
    return client.post("/insurance/claim", data={"formToken": token} | fields).text


def test_claim_for_an_unknown_policy_or_outside_cover_is_refused() -> None:
    client = _insurance()
    policy = policy_book(42)[1]
    base = {"cause": "accident", "claimAmount": "1000", "description": "摔伤"}
    assert "未找到该保单，请核对保单号。" in alerts(
        _claim(client, policyNo="P000", accidentDate="2024-01-01", **base)
    )
    outside = (policy.start - timedelta(days=1)).isoformat()
    assert "出险日期不在保单保险期间内。" in alerts(
        _claim(client, policyNo=policy.policy_no, accidentDate=outside, **base)
    )
    assert "理赔金额不能为空，请填写。" in alerts(
        _claim(client, policyNo=policy.policy_no, accidentDate=outside)
    )


def test_claim_gets_a_number_and_is_recorded() -> None:
    client = _insurance()
    policy = policy_book(42)[0]
    day = (policy.start + timedelta(days=10)).isoformat()
    page = _claim(
        client,
        policyNo=policy.policy_no,
        accidentDate=day,
        cause="illness",
        claimAmount="8600",
        description="住院治疗",
    )
    assert "理赔申请提交成功" in page and "LP20250616000001" in page
    claims = client.get("/__sandbox__/state").json()["claims"]
    assert [(c["policy_no"], c["amount"], c["cause"]) for c in claims] == [
        (policy.policy_no, "8600.00", "illness")
    ]


def test_policy_search_finds_by_holder_and_number_and_opens_the_detail() -> None:
    client = _insurance()
    policy = policy_book(42)[5]
    fragment = client.get("/insurance/policies/search", params={"q": policy.policy_no}).text
    assert fragment.count("<li>") == 1 and policy.holder in fragment
    by_name = client.get("/insurance/policies", params={"q": policy.holder}).text
    assert f'href="/insurance/policies/{policy.policy_no}"' in by_name
    detail = client.get(f"/insurance/policies/{policy.policy_no}").text
    assert "保单详情" in detail and policy.holder in detail
    assert policy.holder_id not in detail  # the ID number is masked
    assert client.get("/insurance/policies/P0000").status_code == 404
