// The page: statements of one account, one page at a time (pages()), each PDF
// offered as a download built from a Blob, and FDX errors shown as
// status / code / message.
import { createClient, type FdxClient, type Statement, type StatementPage } from "@fdxkit/client";
import { describeError } from "./describe-error.js";
import { fillForm, readForm, readSettings, type Settings } from "./settings.js";

const form = document.querySelector<HTMLFormElement>("#settings")!;
const errorBox = document.querySelector<HTMLDivElement>("#error")!;
const statusLine = document.querySelector<HTMLParagraphElement>("#status")!;
const table = document.querySelector<HTMLTableElement>("#statements")!;
const tbody = table.tBodies[0]!;
const pageLabel = document.querySelector<HTMLSpanElement>("#page-label")!;
const nextButton = document.querySelector<HTMLButtonElement>("#next")!;

let client: FdxClient;
let pages: AsyncIterator<StatementPage> | undefined;
let pageNumber = 0;
/** Object URLs of downloaded PDFs; released when the list is reloaded. */
let objectUrls: string[] = [];

function showError(error: unknown): void {
  const view = describeError(error);
  const headline = document.createElement("strong");
  headline.textContent = view.headline;
  const lines = view.details.map((text) => Object.assign(document.createElement("div"), { textContent: text }));
  errorBox.replaceChildren(headline, ...lines);
  errorBox.hidden = false;
}

function clearError(): void {
  errorBox.hidden = true;
  errorBox.replaceChildren();
}

async function load(settings: Settings): Promise<void> {
  clearError();
  for (const url of objectUrls) URL.revokeObjectURL(url);
  objectUrls = [];
  tbody.replaceChildren();
  table.hidden = true;
  nextButton.disabled = true;
  pages = undefined;
  try {
    // Both throw FdxValidationError for unusable settings (a relative URL, an empty id) before any request.
    client = createClient({
      baseUrl: settings.baseUrl,
      ...(settings.productsUrl ? { productsUrl: settings.productsUrl } : {}),
      token: settings.token,
    });
    // pages() is lazy: nothing is requested until next() below.
    const paginator = client.statements.list({ providerId: settings.providerId, accountId: settings.accountId, limit: settings.limit });
    pages = paginator.pages()[Symbol.asyncIterator]();
  } catch (error) {
    showError(error);
    return;
  }
  pageNumber = 0;
  pageLabel.textContent = "";
  await showNextPage();
}

async function showNextPage(): Promise<void> {
  if (!pages) return;
  nextButton.disabled = true;
  statusLine.textContent = "Loading…";
  try {
    const result = await pages.next();
    if (result.done) {
      statusLine.textContent = "No more statements.";
      return;
    }
    pageNumber++;
    render(result.value);
    statusLine.textContent = result.value.nextHref ? "" : "Last page.";
    // The server says whether there is more: no next link, no button.
    nextButton.disabled = !result.value.nextHref;
  } catch (error) {
    statusLine.textContent = "";
    showError(error);
  }
}

function render(page: StatementPage): void {
  tbody.replaceChildren(...page.statements.map(row));
  table.hidden = false;
  pageLabel.textContent = `Page ${pageNumber} (${page.statements.length} statements)`;
}

function row(statement: Statement): HTMLTableRowElement {
  const tr = document.createElement("tr");
  const cells = [statement.statementDate?.slice(0, 10) ?? "", statement.description ?? "", statement.status ?? ""];
  for (const text of cells) tr.append(Object.assign(document.createElement("td"), { textContent: text }));
  const pdfCell = document.createElement("td");
  const button = Object.assign(document.createElement("button"), { type: "button", textContent: "Download PDF" });
  // The mock, like providers, only serves AVAILABLE documents.
  button.disabled = statement.status !== undefined && statement.status !== "AVAILABLE";
  button.addEventListener("click", () => void download(statement, pdfCell, button));
  pdfCell.append(button);
  tr.append(pdfCell);
  return tr;
}

async function download(statement: Statement, cell: HTMLTableCellElement, button: HTMLButtonElement): Promise<void> {
  clearError();
  button.disabled = true;
  try {
    const document_ = await client.statements.download(statement);
    const blob = await document_.blob();
    const url = URL.createObjectURL(blob);
    objectUrls.push(url);
    const name = `statement-${statement.statementDate?.slice(0, 10) ?? "document"}.pdf`;
    const link = Object.assign(document.createElement("a"), { href: url, download: name, textContent: `${name} (${Math.ceil(blob.size / 1024)} KB)` });
    cell.replaceChildren(link);
    // Start the download at once; the link stays for saving it again.
    link.click();
  } catch (error) {
    button.disabled = false;
    showError(error);
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  void load(readForm(form));
});
nextButton.addEventListener("click", () => void showNextPage());

const initial = readSettings(location.search, import.meta.env);
fillForm(form, initial);
void load(initial);
