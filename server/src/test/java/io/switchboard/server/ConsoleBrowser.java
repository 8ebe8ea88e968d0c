package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A real headless Chromium on the web console ({@code docs/console.md}), driven by Selenium through
 * the Debian packages {@code chromium} and {@code chromium-driver} ({@code .ci/run} installs them).
 * Where they are not installed the tests are skipped, loudly. One browser per test class.
 */
final class ConsoleBrowser implements AutoCloseable {

  static final Dimension WIDE = new Dimension(1280, 800);
  static final Dimension PHONE = new Dimension(390, 844);

  private static final List<String> BROWSERS =
      List.of("/usr/bin/chromium", "/usr/bin/chromium-browser");
  private static final List<String> DRIVERS =
      List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");

  final WebDriver driver;
  private final URI base;

  private ConsoleBrowser(WebDriver driver, URI base) {
    this.driver = driver;
    this.base = base;
  }

  /** A browser on {@code base}; skips the calling test class when Chromium is not installed. */
  static ConsoleBrowser open(URI base) {
    String browser =
        BROWSERS.stream().filter(p -> Files.isExecutable(Path.of(p))).findFirst().orElse(null);
    String chromedriver =
        DRIVERS.stream().filter(p -> Files.isExecutable(Path.of(p))).findFirst().orElse(null);
    if (browser == null || chromedriver == null) {
      String message =
          "!!!!! the web console's browser tests are SKIPPED: install the Debian packages chromium"
              + " and chromium-driver (.ci/run does when it can) !!!!!";
      System.err.println(message);
      Assumptions.abort(message);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(browser);
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--hide-scrollbars",
        "--window-size=" + WIDE.width + "," + WIDE.height);
    options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(Path.of(chromedriver).toFile())
            .usingAnyFreePort()
            .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    return new ConsoleBrowser(driver, base);
  }

  /** Opens the console at {@code fragment} ({@code #/queues}); a fragment change only routes. */
  void go(String fragment) {
    go(base, fragment);
  }

  /** Opens the console of the server at {@code server}. */
  void go(URI server, String fragment) {
    driver.get(server + "/console" + fragment);
  }

  /** Waits for an element to be shown. */
  WebElement shown(By by) {
    return new WebDriverWait(driver, Duration.ofSeconds(15))
        .until(ExpectedConditions.visibilityOfElementLocated(by));
  }

  /**
   * Clicks the element once shown, finding it again if it was redrawn between finding and clicking
   * (a list refreshed every few seconds replaces its rows).
   */
  void click(By by) {
    new WebDriverWait(driver, Duration.ofSeconds(15))
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(
            d -> {
              WebElement e = ExpectedConditions.visibilityOfElementLocated(by).apply(d);
              if (e == null) {
                return false;
              }
              e.click();
              return true;
            });
  }

  /**
   * The text of the first visible element {@code by} finds. Read inside the wait and retried when
   * the page re-renders between finding and reading (a wallboard redraws on every event), which a
   * plain {@code shown(by).getText()} would see as a stale element.
   */
  String shownText(By by) {
    return new WebDriverWait(driver, Duration.ofSeconds(15))
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(
            d -> {
              WebElement e = ExpectedConditions.visibilityOfElementLocated(by).apply(d);
              return e == null ? null : e.getText();
            });
  }

  /** Waits until the element's text is {@code text}, and answers it. */
  void text(By by, String text) {
    try {
      new WebDriverWait(driver, Duration.ofSeconds(15))
          .until(ExpectedConditions.textToBe(by, text));
    } catch (org.openqa.selenium.TimeoutException e) {
      List<WebElement> found = driver.findElements(by);
      assertEquals(text, found.isEmpty() ? "(no element " + by + ")" : found.get(0).getText());
    }
  }

  /** Waits until the element's text contains {@code text}. */
  void contains(By by, String text) {
    try {
      new WebDriverWait(driver, Duration.ofSeconds(15))
          .until(ExpectedConditions.textToBePresentInElementLocated(by, text));
    } catch (org.openqa.selenium.TimeoutException e) {
      List<WebElement> found = driver.findElements(by);
      throw new AssertionError(
          "expected '"
              + text
              + "' in "
              + by
              + ", found: "
              + (found.isEmpty() ? "(no element)" : found.get(0).getText()),
          e);
    }
  }

  /** Waits until {@code by} matches {@code count} elements. */
  void count(By by, int count) {
    try {
      new WebDriverWait(driver, Duration.ofSeconds(15))
          .until(ExpectedConditions.numberOfElementsToBe(by, count));
    } catch (org.openqa.selenium.TimeoutException e) {
      assertEquals(count, driver.findElements(by).size(), "elements " + by);
    }
  }

  /**
   * At phone width (390 px): the page does not scroll sideways, and every action button shown lies
   * within the viewport, left edge to right edge; {@code what} names the page in the failures.
   */
  void assertFitsPhoneWidth(String what) {
    driver.manage().window().setSize(PHONE);
    try {
      new WebDriverWait(driver, Duration.ofSeconds(5))
          .until(d -> ((Number) script("return window.innerWidth")).intValue() <= PHONE.width);
      @SuppressWarnings("unchecked")
      Map<String, Object> fit =
          (Map<String, Object>)
              script(
                  "const de = document.documentElement;"
                      + "const w = de.clientWidth;"
                      + "const off = [...document.querySelectorAll('main button, main select,"
                      + " main input')]"
                      + "  .filter((b) => b.offsetParent !== null)"
                      + "  .filter((b) => { const r = b.getBoundingClientRect();"
                      + "    return r.left < 0 || r.right > w + 0.5; })"
                      + "  .map((b) => (b.getAttribute('aria-label') || b.textContent || b.id)"
                      + "    + ' at ' + Math.round(b.getBoundingClientRect().left) + '..'"
                      + "    + Math.round(b.getBoundingClientRect().right));"
                      + "return {scrollWidth: de.scrollWidth, clientWidth: w, off};");
      long scrollWidth = ((Number) fit.get("scrollWidth")).longValue();
      long clientWidth = ((Number) fit.get("clientWidth")).longValue();
      assertTrue(
          scrollWidth <= clientWidth,
          what + " scrolls sideways at phone width: " + scrollWidth + " > " + clientWidth);
      assertEquals(List.of(), fit.get("off"), what + ": controls off screen at phone width");
    } finally {
      driver.manage().window().setSize(WIDE);
    }
  }

  Object script(String js, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(js, args);
  }

  Object asyncScript(String js, Object... args) {
    return ((JavascriptExecutor) driver).executeAsyncScript(js, args);
  }

  /**
   * Fails on any error in the browser's console since the last call; a refused request the test
   * made on purpose is allowed by its status ({@code "401"}), nothing else.
   */
  void assertNoJavaScriptErrors(String... expectedStatuses) {
    assertNoJavaScriptErrorsBut(
        Arrays.stream(expectedStatuses).map(s -> "status of " + s + " ").toArray(String[]::new));
  }

  /**
   * As {@link #assertNoJavaScriptErrors}, allowing the console lines that contain {@code expected}.
   */
  void assertNoJavaScriptErrorsBut(String... expected) {
    List<String> errors =
        driver.manage().logs().get(LogType.BROWSER).getAll().stream()
            .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
            .map(LogEntry::getMessage)
            .filter(m -> Arrays.stream(expected).noneMatch(m::contains))
            .toList();
    assertEquals(List.of(), errors, "JavaScript errors in the browser console");
  }

  /**
   * Screenshots of what is shown, at 1280×800 and at phone width: {@code NAME.png} and {@code
   * NAME-phone.png}, into {@code target/console-screenshots/}, or with {@code
   * -Dswitchboard.updateDocs=true} into {@code docs/console/} of the repository (as {@code
   * SettingsDocTest} rewrites its table), so that a test run leaves the tracked files alone.
   */
  void screenshots(String name) {
    Path dir = screenshotDir();
    try {
      driver.manage().window().setSize(WIDE);
      script("window.scrollTo(0, 0)");
      Files.write(
          dir.resolve(name + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
      driver.manage().window().setSize(PHONE);
      script("window.scrollTo(0, 0)");
      Files.write(
          dir.resolve(name + "-phone.png"),
          ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
      driver.manage().window().setSize(WIDE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A screenshot at 1280×800 with the system's colour scheme dark: {@code NAME.png}; answers the
   * page's background colour then.
   */
  String darkScreenshot(String name) {
    ChromeDriver chrome = (ChromeDriver) driver;
    Map<String, Object> dark =
        Map.of("features", List.of(Map.of("name", "prefers-color-scheme", "value", "dark")));
    chrome.executeCdpCommand("Emulation.setEmulatedMedia", dark);
    try {
      script("window.scrollTo(0, 0)");
      Files.write(
          screenshotDir().resolve(name + ".png"),
          ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
      return (String) script("return getComputedStyle(document.body).backgroundColor");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      chrome.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features", List.of()));
    }
  }

  private static Path screenshotDir() {
    Path dir =
        Boolean.getBoolean("switchboard.updateDocs")
            ? docs().resolve("console")
            : Path.of("target", "console-screenshots");
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The repository's {@code docs/}: the tests run in {@code server/}. */
  private static Path docs() {
    Path here = Path.of("").toAbsolutePath();
    for (Path p = here; p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("docs")) && Files.exists(p.resolve("mvnw"))) {
        return p.resolve("docs");
      }
    }
    return here.resolve("docs");
  }

  @Override
  public void close() {
    driver.quit();
  }
}
