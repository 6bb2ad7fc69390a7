/**
 * Load data for a page: `{data, error, loading, reload}` for one async loader, re-run when `deps` change.
 * A newer load wins over an older one still in flight.
 */
import { useCallback, useEffect, useRef, useState, type DependencyList } from "react";
import { ApiProblem } from "./problem";

export interface Loaded<T> {
  data: T | undefined;
  error: ApiProblem | null;
  loading: boolean;
  reload: () => void;
}

export function useApi<T>(loader: () => Promise<T>, deps: DependencyList): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiProblem | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const generation = useRef(0);

  useEffect(() => {
    const mine = ++generation.current;
    setLoading(true);
    loader()
      .then((value) => {
        if (generation.current !== mine) return;
        setData(value);
        setError(null);
      })
      .catch((problem: unknown) => {
        if (generation.current !== mine) return;
        setError(problem instanceof ApiProblem ? problem : ApiProblem.network());
      })
      .finally(() => generation.current === mine && setLoading(false));
    // The caller lists the loader's inputs in deps.
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, loading, reload };
}
