/**
 * Who is signed in. On start the page tries the refresh cookie (a reload keeps the sign-in); otherwise it
 * shows the login page. `me` carries the caller's roles per department, used to show or hide actions (the
 * server decides every permission again).
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { api, call, session, type Schemas } from "../api/client";

export type Me = Schemas["Me"];

type AuthState = { phase: "checking" } | { phase: "signedOut" } | { phase: "signedIn"; me: Me };

interface AuthValue {
  state: AuthState;
  signIn: (org: string, username: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
}

const AuthContext = createContext<AuthValue | null>(null);

async function loadMe(): Promise<Me> {
  return call(api.GET("/api/v1/auth/me"));
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<AuthState>({ phase: "checking" });

  useEffect(() => {
    let live = true;
    session
      .refresh()
      .then(async (ok) => {
        const me = ok ? await loadMe() : null;
        if (live) setState(me ? { phase: "signedIn", me } : { phase: "signedOut" });
      })
      .catch(() => live && setState({ phase: "signedOut" }));
    const unsubscribe = session.subscribe((signedIn) => {
      if (!signedIn) setState({ phase: "signedOut" });
    });
    return () => {
      live = false;
      unsubscribe();
    };
  }, []);

  const signIn = useCallback(async (org: string, username: string, password: string) => {
    const tokens = await call(api.POST("/api/v1/auth/login", { body: { org, username, password } }));
    session.accept(tokens.access_token, tokens.expires_in);
    setState({ phase: "signedIn", me: await loadMe() });
  }, []);

  const signOut = useCallback(async () => {
    try {
      await call(api.POST("/api/v1/auth/logout"));
    } finally {
      session.clear();
      setState({ phase: "signedOut" });
    }
  }, []);

  const value = useMemo(() => ({ state, signIn, signOut }), [state, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error("useAuth must be used inside <AuthProvider>");
  return value;
}

/** The signed-in user (only inside the app shell, which renders after sign-in). */
export function useMe(): Me {
  const { state } = useAuth();
  if (state.phase !== "signedIn") throw new Error("useMe needs a signed-in user");
  return state.me;
}
