/**
 * Before/after screenshots of one audited action, shown side by side. Each image is fetched through an
 * expiring signed link (`POST /audit/records/{id}/links`), and the server audits every link it issues, so
 * links are asked for only when a person opens the pair.
 */
import { Alert, Empty, Image, Modal, Skeleton, Typography } from "antd";
import { useEffect, useState } from "react";
import { api, call } from "../api/client";
import { useI18n } from "../i18n/I18nProvider";
import { describeProblem } from "./ProblemAlert";

export type Phase = "before" | "after";

interface ScreenshotPairProps {
  recordId: string | null;
  phases: Phase[];
  title: string;
  onClose: () => void;
}

interface Shot {
  phase: Phase;
  url: string | null;
  error: string | null;
}

export function ScreenshotPair({ recordId, phases, title, onClose }: ScreenshotPairProps) {
  const { t, locale } = useI18n();
  const [shots, setShots] = useState<Shot[] | null>(null);

  const wanted = phases.join(",");
  useEffect(() => {
    if (!recordId) return;
    let live = true;
    setShots(null);
    Promise.all(
      (wanted ? (wanted.split(",") as Phase[]) : []).map(async (phase): Promise<Shot> => {
        try {
          const link = await call(
            api.POST("/api/v1/audit/records/{record_id}/links", { params: { path: { record_id: recordId } }, body: { phase } }),
          );
          return { phase, url: link.url, error: null };
        } catch (problem) {
          return { phase, url: null, error: describeProblem(problem, t, locale) };
        }
      }),
    ).then((result) => live && setShots(result));
    return () => {
      live = false;
    };
    // One request per phase per opening: every link issued is an audit row.
  }, [recordId, wanted, t]);

  return (
    <Modal open={recordId !== null} title={title} onCancel={onClose} footer={null} width={1100} destroyOnClose>
      {!shots ? (
        <Skeleton active />
      ) : shots.length === 0 ? (
        <Empty description={t("timeline.noScreenshot")} />
      ) : (
        <div className="screenshot-pair">
          {shots.map((shot) => (
            <figure key={shot.phase} style={{ margin: 0 }} data-testid={`screenshot-${shot.phase}`}>
              <Typography.Text strong>{t(shot.phase === "before" ? "timeline.before" : "timeline.after")}</Typography.Text>
              {shot.url ? (
                <Image src={shot.url} alt={t(shot.phase === "before" ? "timeline.before" : "timeline.after")} />
              ) : (
                <Alert type="warning" message={shot.error} />
              )}
            </figure>
          ))}
        </div>
      )}
    </Modal>
  );
}
