/** The signed-in frame: side menu (items by role), header with organisation, user, language and sign-out. */
import {
  AuditOutlined,
  AppstoreOutlined,
  CheckSquareOutlined,
  DashboardOutlined,
  DollarOutlined,
  LogoutOutlined,
  SettingOutlined,
  UnorderedListOutlined,
} from "@ant-design/icons";
import { Button, Layout, Menu, Space, Typography } from "antd";
import type { ReactNode } from "react";
import { useLocation, useNavigate } from "react-router-dom";
import { useAuth, useMe } from "../auth/AuthProvider";
import { isAdmin } from "../auth/roles";
import { useI18n } from "../i18n/I18nProvider";
import { LanguageSwitch } from "../i18n/LanguageSwitch";
import type { MessageKey } from "../i18n/messages.zh-CN";

interface MenuEntry {
  path: string;
  label: MessageKey;
  icon: ReactNode;
  adminOnly?: boolean;
}

const ENTRIES: MenuEntry[] = [
  { path: "/", label: "menu.overview", icon: <DashboardOutlined /> },
  { path: "/tasks", label: "menu.tasks", icon: <UnorderedListOutlined /> },
  { path: "/approvals", label: "menu.approvals", icon: <CheckSquareOutlined /> },
  { path: "/audit", label: "menu.audit", icon: <AuditOutlined /> },
  { path: "/cost", label: "menu.cost", icon: <DollarOutlined /> },
  { path: "/catalogue", label: "menu.catalogue", icon: <AppstoreOutlined /> },
  { path: "/admin", label: "menu.admin", icon: <SettingOutlined />, adminOnly: true },
];

function selectedKey(pathname: string): string {
  const match = ENTRIES.filter((e) => e.path !== "/" && pathname.startsWith(e.path));
  return match[0]?.path ?? "/";
}

export function AppShell({ children }: { children: ReactNode }) {
  const { t } = useI18n();
  const { signOut } = useAuth();
  const me = useMe();
  const navigate = useNavigate();
  const location = useLocation();
  const items = ENTRIES.filter((e) => !e.adminOnly || isAdmin(me)).map((e) => ({
    key: e.path,
    icon: e.icon,
    label: t(e.label),
  }));

  return (
    <Layout style={{ minHeight: "100vh" }}>
      <Layout.Sider width={208} breakpoint="lg" collapsedWidth={64} theme="dark">
        <div className="brand">FinRPA</div>
        <Menu
          theme="dark"
          mode="inline"
          selectedKeys={[selectedKey(location.pathname)]}
          items={items}
          onClick={({ key }) => navigate(key)}
          aria-label="main"
        />
      </Layout.Sider>
      <Layout>
        <Layout.Header className="app-header">
          <Typography.Text strong>{me.org_name}</Typography.Text>
          <Space size="middle">
            <Typography.Text data-testid="current-user">{me.display_name || me.username}</Typography.Text>
            <LanguageSwitch />
            <Button icon={<LogoutOutlined />} onClick={() => void signOut()}>
              {t("app.signOut")}
            </Button>
          </Space>
        </Layout.Header>
        <Layout.Content className="app-content">{children}</Layout.Content>
      </Layout>
    </Layout>
  );
}
