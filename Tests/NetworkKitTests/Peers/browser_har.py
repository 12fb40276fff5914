"""A browser on either side of a HAR, for HARBrowserTests: Chromium driven by Playwright.

    browser_har.py record ORIGIN HAR     opens ORIGIN/json/small, fetches ORIGIN/compressed/gzip?count=3
                                         from the page, and writes what the browser exchanged as HAR
    browser_har.py replay HAR URL        opens URL in a browser whose every request is answered from HAR
                                         (none reaches the network) and prints the page's text

CHROMIUM names the browser's executable (default: chromium on PATH)."""
import os
import shutil
import sys

from playwright.sync_api import sync_playwright


def launch(playwright):
    executable = os.environ.get("CHROMIUM") or shutil.which("chromium")
    return playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])


def record(origin, har):
    with sync_playwright() as playwright:
        browser = launch(playwright)
        context = browser.new_context(record_har_path=har)
        page = context.new_page()
        page.goto(origin + "/json/small")
        page.evaluate("fetch('/compressed/gzip?count=3').then(answer => answer.text())")
        page.wait_for_load_state("networkidle")
        context.close()
        browser.close()


def replay(har, url):
    with sync_playwright() as playwright:
        browser = launch(playwright)
        context = browser.new_context()
        context.route_from_har(har, not_found="abort")
        page = context.new_page()
        page.goto(url)
        sys.stdout.write(page.inner_text("body"))
        context.close()
        browser.close()


if __name__ == "__main__":
    command, first, second = sys.argv[1:4]
    {"record": record, "replay": replay}[command](first, second)
