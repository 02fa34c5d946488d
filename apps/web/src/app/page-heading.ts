/**
 * The page's heading does what a new page load would: the tab's title names the page
 * (`<h1> · Sluice`), following the heading as the page loads its data, and after a navigation
 * inside the app the keyboard focus moves to the heading, so a screen reader announces the new
 * page and Tab starts from its top. Pages only render their `<h1>`; this watches for it.
 * @module
 */
import { useEffect, useRef } from 'react';
import type { RefObject } from 'react';

const APP = 'Sluice';

export function usePageHeading(main: RefObject<HTMLElement | null>, path: string): void {
  const first = useRef(true);
  useEffect(() => {
    const root = main.current;
    if (!root) return;
    // The first page of a load keeps the browser's own focus (the top of the document).
    let focusPending = !first.current;
    first.current = false;
    const update = () => {
      const heading = root.querySelector('h1');
      const text = heading?.textContent?.trim() ?? '';
      const title = text === '' ? APP : `${text} · ${APP}`;
      if (document.title !== title) document.title = title;
      if (heading && focusPending) {
        focusPending = false;
        heading.tabIndex = -1;
        heading.focus({ preventScroll: true });
      }
    };
    update();
    const observer = new MutationObserver(update);
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [main, path]);
}
