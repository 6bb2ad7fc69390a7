/** Routes: the login page until signed in, then the shell with one page per menu entry. */
import { Button, Result, Spin } from "antd";
import { Route, Routes, useNavigate } from "react-router-dom";
import { useAuth } from "./auth/AuthProvider";
import { useI18n } from "./i18n/I18nProvider";
import { AppShell } from "./layout/AppShell";
import { AdminPage } from "./pages/admin/AdminPage";
import { ApprovalsPage } from "./pages/approvals/ApprovalsPage";
import { AuditPage } from "./pages/audit/AuditPage";
import { CataloguePage } from "./pages/CataloguePage";
import { CostPage } from "./pages/CostPage";
import { LoginPage } from "./pages/LoginPage";
import { OverviewPage } from "./pages/OverviewPage";
import { TaskCreatePage } from "./pages/tasks/TaskCreatePage";
import { TaskDetailPage } from "./pages/tasks/TaskDetailPage";
import { TaskListPage } from "./pages/tasks/TaskListPage";

function NotFound() {
  const { t } = useI18n();
  const navigate = useNavigate();
  return (
    <Result
      status="404"
      title="404"
      subTitle={t("app.notFound")}
      extra={<Button onClick={() => navigate("/")}>{t("app.backHome")}</Button>}
    />
  );
}

export function App() {
  const { state } = useAuth();
  const { t } = useI18n();
  if (state.phase === "checking") {
    return <Spin fullscreen tip={t("app.loading")} />;
  }
  if (state.phase === "signedOut") return <LoginPage />;
  return (
    <AppShell>
      <Routes>
        <Route path="/" element={<OverviewPage />} />
        <Route path="/tasks" element={<TaskListPage />} />
        <Route path="/tasks/new" element={<TaskCreatePage />} />
        <Route path="/tasks/:taskId" element={<TaskDetailPage />} />
        <Route path="/approvals" element={<ApprovalsPage />} />
        <Route path="/approvals/:approvalId" element={<ApprovalsPage />} />
        <Route path="/audit" element={<AuditPage />} />
        <Route path="/cost" element={<CostPage />} />
        <Route path="/catalogue" element={<CataloguePage />} />
        <Route path="/admin" element={<AdminPage />} />
        <Route path="*" element={<NotFound />} />
      </Routes>
    </AppShell>
  );
}
