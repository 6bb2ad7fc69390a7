/** Administration: departments, business lines, users and roles, credentials, API keys, policies. */
import { Tabs } from "antd";
import { useMe } from "../../auth/AuthProvider";
import { PageTitle } from "../../components/PageTitle";
import { useI18n } from "../../i18n/I18nProvider";
import { ApiKeysTab } from "./ApiKeysTab";
import { CredentialsTab } from "./CredentialsTab";
import { OrgUnitsTab } from "./OrgUnitsTab";
import { PoliciesTab } from "./PoliciesTab";
import { UsersTab } from "./UsersTab";

export function AdminPage() {
  const { t } = useI18n();
  const me = useMe();
  const orgAdmin = me.is_org_admin || me.is_super_admin;
  const items = [
    { key: "departments", label: t("admin.departments"), children: <OrgUnitsTab kind="departments" canEdit={orgAdmin} /> },
    { key: "lines", label: t("admin.lines"), children: <OrgUnitsTab kind="business-lines" canEdit={orgAdmin} /> },
    { key: "users", label: t("admin.users"), children: <UsersTab canCreate={orgAdmin} /> },
    { key: "credentials", label: t("admin.credentials"), children: <CredentialsTab /> },
    ...(orgAdmin ? [{ key: "api-keys", label: t("admin.apiKeys"), children: <ApiKeysTab /> }] : []),
    ...(orgAdmin ? [{ key: "policies", label: t("admin.policies"), children: <PoliciesTab /> }] : []),
  ];
  return (
    <>
      <PageTitle title={t("menu.admin")} />
      <Tabs items={items} destroyInactiveTabPane />
    </>
  );
}
