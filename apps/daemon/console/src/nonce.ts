// The page's Content-Security-Policy lets in only the styles of its own files and `<style>` elements
// carrying this response's nonce. xterm.js creates `<style>` elements for its themes and sizes, and
// cannot be given a nonce: so every `<style>` made on this page is stamped with the nonce as it is made,
// before it is inserted (a nonce set later does not count).

/** Stamps the nonce on every `<style>` made from now on; called before any terminal is made. */
export function stampStyleNonce(): void {
  const nonce = document.querySelector<HTMLMetaElement>('meta[name="conch-style-nonce"]')?.content ?? "";
  if (nonce === "") return;
  const create = Document.prototype.createElement;
  Document.prototype.createElement = function createElement(
    this: Document,
    tagName: string,
    options?: ElementCreationOptions,
  ): HTMLElement {
    const element = create.call(this, tagName, options);
    if (element instanceof HTMLStyleElement) element.setAttribute("nonce", nonce);
    return element;
  } as typeof Document.prototype.createElement;
}
