/** A page's title with its actions on the right. */
import { Space, Typography } from "antd";
import type { ReactNode } from "react";

export function PageTitle({ title, extra }: { title: ReactNode; extra?: ReactNode }) {
  return (
    <div className="page-title">
      <Typography.Title level={2}>{title}</Typography.Title>
      {extra && <Space wrap>{extra}</Space>}
    </div>
  );
}
