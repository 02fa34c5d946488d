/**
 * The signed-in token: kept in sessionStorage (this tab) or, when asked to remember it, in
 * localStorage; never in a URL. Signing out removes it from both.
 * @module
 */
const KEY = 'sluice.token';

export function loadToken(): string | null {
  return sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY);
}

export function saveToken(token: string, remember: boolean): void {
  clearToken();
  (remember ? localStorage : sessionStorage).setItem(KEY, token);
}

export function clearToken(): void {
  sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEY);
}
