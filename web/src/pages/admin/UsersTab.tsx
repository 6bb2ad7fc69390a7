/**
 * Users and their roles per department: create a user, grant or revoke a role (operator and approver are
 * never given on the same department — the server refuses it and says so), give business-line visibility
 * and cross-department grants.
 */
import { PlusOutlined } from "@ant-design/icons";
import { Alert, Button, Card, Checkbox, Empty, Form, Input, Modal, Popconfirm, Select, Space, Table, Tag } from "antd";
import type { ColumnsType } from "antd/es/table";
import { useState } from "react";
import { api, call, type Schemas } from "../../api/client";
import { newIdempotencyKey } from "../../api/idempotency";
import { useApi } from "../../api/useApi";
import { describeProblem, ProblemAlert } from "../../components/ProblemAlert";
import { useDepartments } from "../../data/reference";
import { formatDateTime } from "../../format/dates";
import { useI18n } from "../../i18n/I18nProvider";
import type { MessageKey } from "../../i18n/messages.zh-CN";

type UserView = Schemas["UserView"];
type Role = Schemas["Role"];
type GrantKind = Schemas["GrantKind"];

const ROLES: Role[] = ["dept_admin", "operator", "approver", "auditor", "viewer"];

interface NewUser {
  username: string;
  display_name?: string;
  password?: string;
  org_admin?: boolean;
}

export function UsersTab({ canCreate }: { canCreate: boolean }) {
  const { t, locale } = useI18n();
  const users = useApi(() => call(api.GET("/api/v1/users")), []);
  const departments = useDepartments();
  const lines = useApi(() => call(api.GET("/api/v1/business-lines")), []);
  const [failure, setFailure] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [grantFor, setGrantFor] = useState<UserView | null>(null);
  const [createForm] = Form.useForm<NewUser>();
  const [grantForm] = Form.useForm<{ department_id: string; role: Role }>();
  const deptName = (id: string | null) => departments.find((d) => d.id === id)?.name ?? id ?? t("admin.allDepartments");

  const act = async (work: () => Promise<unknown>) => {
    setFailure(null);
    try {
      await work();
      users.reload();
      return true;
    } catch (problem) {
      setFailure(describeProblem(problem, t, locale));
      return false;
    }
  };

  const createUser = async (values: NewUser) => {
    const ok = await act(() =>
      call(
        api.POST("/api/v1/users", {
          params: { header: { "Idempotency-Key": newIdempotencyKey() } },
          body: { username: values.username.trim(), display_name: values.display_name ?? "", password: values.password || null, org_admin: values.org_admin ?? false },
        }),
      ),
    );
    if (ok) {
      setCreating(false);
      createForm.resetFields();
    }
  };

  const grantRole = async (values: { department_id: string; role: Role }) => {
    if (!grantFor) return;
    const ok = await act(() => call(api.POST("/api/v1/users/{user_id}/roles", { params: { path: { user_id: grantFor.id } }, body: values })));
    if (ok) {
      setGrantFor(null);
      grantForm.resetFields();
    }
  };

  const revoke = (user: UserView, departmentId: string, role: Role) =>
    act(() =>
      call(api.DELETE("/api/v1/users/{user_id}/roles/{department_id}/{role}", { params: { path: { user_id: user.id, department_id: departmentId, role } } })),
    );

  const addLine = (user: UserView, lineId: string) =>
    act(() => call(api.POST("/api/v1/users/{user_id}/business-lines", { params: { path: { user_id: user.id } }, body: { business_line_id: lineId } })));

  const addGrant = (user: UserView, kind: GrantKind) =>
    act(() => call(api.POST("/api/v1/users/{user_id}/grants", { params: { path: { user_id: user.id } }, body: { kind, department_id: null } })));

  const columns: ColumnsType<UserView> = [
    { title: t("login.username"), dataIndex: "username", width: 140 },
    { title: t("admin.displayName"), dataIndex: "display_name", width: 140 },
    {
      title: t("admin.roles"),
      render: (_: unknown, user) => (
        <Space size={[4, 4]} wrap>
          {user.is_org_admin && <Tag color="purple">{t("role.org_admin")}</Tag>}
          {user.departments.flatMap((m) =>
            m.roles.map((role) => (
              <Popconfirm key={`${m.department_id}-${role}`} title={t("admin.revoke.confirm")} onConfirm={() => void revoke(user, m.department_id, role)}>
                <Tag closable onClose={(e) => e.preventDefault()} color={role === "approver" ? "gold" : role === "operator" ? "blue" : "default"}>
                  {deptName(m.department_id)} · {t(`role.${role}` as MessageKey)}
                </Tag>
              </Popconfirm>
            )),
          )}
          {user.grants.map((g) => (
            <Tag key={g.id} color="cyan">
              {g.kind} · {deptName(g.department_id)}
            </Tag>
          ))}
        </Space>
      ),
    },
    {
      title: t("admin.lines"),
      width: 200,
      render: (_: unknown, user) => (
        <Select
          mode="multiple"
          size="small"
          style={{ width: "100%" }}
          value={user.business_line_ids}
          options={(lines.data ?? []).map((l) => ({ value: l.id, label: l.name }))}
          onSelect={(id: string) => void addLine(user, id)}
          aria-label={t("admin.lines")}
        />
      ),
    },
    { title: t("admin.lastLogin"), dataIndex: "last_login_at", width: 170, render: (v: string | null) => formatDateTime(v) },
    {
      title: "",
      width: 220,
      render: (_: unknown, user) => (
        <Space>
          <Button size="small" onClick={() => setGrantFor(user)}>
            {t("admin.grantRole")}
          </Button>
          <Select<GrantKind>
            size="small"
            placeholder={t("admin.grant")}
            style={{ width: 110 }}
            value={null}
            onSelect={(kind) => void addGrant(user, kind)}
            options={[
              { value: "CROSS_DEPT_READ", label: t("grant.CROSS_DEPT_READ") },
              { value: "CROSS_DEPT_APPROVE", label: t("grant.CROSS_DEPT_APPROVE") },
            ]}
          />
        </Space>
      ),
    },
  ];

  return (
    <Card>
      {users.error && <ProblemAlert problem={users.error} onRetry={users.reload} />}
      {failure && !creating && !grantFor && (
        <Alert type="error" showIcon closable message={failure} style={{ marginBottom: 16 }} onClose={() => setFailure(null)} />
      )}
      {canCreate && (
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} style={{ marginBottom: 16 }}>
          {t("admin.newUser")}
        </Button>
      )}
      <Table<UserView>
        rowKey="id"
        size="small"
        pagination={false}
        loading={users.loading}
        columns={columns}
        dataSource={users.data ?? []}
        scroll={{ x: 1100 }}
        locale={{ emptyText: <Empty description={t("admin.users.empty")} /> }}
      />
      <Modal open={creating} title={t("admin.newUser")} onCancel={() => setCreating(false)} onOk={() => createForm.submit()} destroyOnClose>
        {failure && <Alert type="error" showIcon message={failure} style={{ marginBottom: 16 }} role="alert" />}
        <Form form={createForm} layout="vertical" onFinish={(v) => void createUser(v)}>
          <Form.Item name="username" label={t("login.username")} rules={[{ required: true, message: t("form.problem.required") }]}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item name="display_name" label={t("admin.displayName")}>
            <Input />
          </Form.Item>
          <Form.Item name="password" label={t("login.password")} extra={t("admin.password.help")}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Form.Item name="org_admin" valuePropName="checked">
            <Checkbox>{t("role.org_admin")}</Checkbox>
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        open={grantFor !== null}
        title={t("admin.grantRoleTo", { user: grantFor?.username ?? "" })}
        onCancel={() => {
          setGrantFor(null);
          setFailure(null);
        }}
        onOk={() => grantForm.submit()}
        destroyOnClose
      >
        <Alert type="info" showIcon message={t("admin.makerChecker")} style={{ marginBottom: 16 }} />
        {failure && <Alert type="error" showIcon message={failure} style={{ marginBottom: 16 }} role="alert" />}
        <Form form={grantForm} layout="vertical" onFinish={(v) => void grantRole(v)}>
          <Form.Item name="department_id" label={t("tasks.col.department")} rules={[{ required: true, message: t("form.problem.required") }]}>
            <Select options={departments.map((d) => ({ value: d.id, label: d.name }))} />
          </Form.Item>
          <Form.Item name="role" label={t("admin.role")} rules={[{ required: true, message: t("form.problem.required") }]}>
            <Select options={ROLES.map((r) => ({ value: r, label: t(`role.${r}` as MessageKey) }))} />
          </Form.Item>
        </Form>
      </Modal>
    </Card>
  );
}
