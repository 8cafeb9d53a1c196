package io.github.redisqueue.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.ElementNotInteractableException;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.UnexpectedAlertBehaviour;
import org.openqa.selenium.UnhandledAlertException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.util.FileSystemUtils;

/**
 * Headless Chromium driven through ChromeDriver, both from the machine's packages (Debian's
 * {@code chromium} and {@code chromium-driver}; {@code .ci/run} installs them): the browser's
 * own downloads and background connections are switched off, so nothing leaves the machine. The
 * system properties {@code dashboard.test.chromium} and {@code dashboard.test.chromedriver} name
 * other binaries. When a binary is missing the test fails with a message saying what to install.
 */
final class Browser implements AutoCloseable {

	/** Where screenshots go: {@code target/screenshots} of the module. */
	static final Path SCREENSHOTS = Paths.get("target", "screenshots");

	/**
	 * The longest wait for a condition: generous, as a loaded machine may take seconds to draw a
	 * page; a condition that holds ends the wait at once.
	 */
	private static final Duration WAIT = Duration.ofSeconds(90);

	private static final Duration POLL = Duration.ofMillis(100);

	private final ChromeDriver driver;

	private final Path profile;

	private Browser(ChromeDriver driver, Path profile) {
		this.driver = driver;
		this.profile = profile;
	}

	static Browser start() {
		Path chromium = binary("dashboard.test.chromium", "/usr/bin/chromium", "chromium");
		Path chromedriver = binary("dashboard.test.chromedriver", "/usr/bin/chromedriver", "chromium-driver");
		Path profile;
		try {
			profile = Files.createTempDirectory("dashboard-chromium-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		ChromeOptions options = new ChromeOptions();
		options.setBinary(chromium.toFile());
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
				"--disable-sync", "--disable-extensions", "--window-size=1360,860", "--user-data-dir=" + profile);
		// a click that meets a confirmation left open by the click before fails, and the dialog
		// stays for the next try to accept (see clickAndConfirm)
		options.setUnhandledPromptBehaviour(UnexpectedAlertBehaviour.IGNORE);
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
			.usingAnyFreePort()
			.build();
		return new Browser(new ChromeDriver(service, options), profile);
	}

	private static Path binary(String property, String fallback, String debianPackage) {
		Path path = Paths.get(System.getProperty(property, fallback));
		if (!Files.isExecutable(path)) {
			throw new IllegalStateException("The dashboard's browser tests need " + path + " (Debian package '"
					+ debianPackage + "': apt-get install chromium chromium-driver; .ci/run installs it), or the "
					+ "system property " + property + " naming another binary");
		}
		return path;
	}

	WebDriver driver() {
		return this.driver;
	}

	void open(String url) {
		this.driver.get(url);
	}

	/**
	 * Waits until the condition gives a non-null, non-false value, then returns it. The page
	 * redraws itself on a timer, so an element found a moment ago may be gone by the time it is
	 * used: the condition is tried again then, with its elements found again.
	 */
	<T> T until(Function<WebDriver, T> condition) {
		return new WebDriverWait(this.driver, WAIT, POLL).ignoring(StaleElementReferenceException.class)
			.ignoring(NoSuchElementException.class)
			.ignoring(ElementNotInteractableException.class)
			.ignoring(UnhandledAlertException.class)
			.until(condition);
	}

	/** Waits for an element matching the selector and returns it. */
	WebElement find(String css) {
		return until((d) -> d.findElements(By.cssSelector(css)).stream().findFirst().orElse(null));
	}

	/** Waits until the element matching the selector shows the text. */
	void waitForText(String css, String text) {
		until((d) -> d.findElements(By.cssSelector(css)).stream().anyMatch((e) -> text.equals(e.getText().trim())));
	}

	/**
	 * Clicks the element matching the selector until the click had its effect: each try finds the
	 * element again (the page may have redrawn it since the last one), and a click on an element
	 * redrawn under it is tried again.
	 * @param css the element
	 * @param done whether the click had its effect
	 */
	void clickUntil(String css, Function<WebDriver, Boolean> done) {
		until((d) -> {
			if (done.apply(d)) {
				return true;
			}
			d.findElement(By.cssSelector(css)).click();
			return done.apply(d) ? true : null;
		});
	}

	/**
	 * Types the text into the input matching the selector until it holds it: each try finds the
	 * input again (a redraw may have replaced it) and fills it afresh when it does not hold the text.
	 */
	void type(String css, String text) {
		until((d) -> {
			WebElement input = d.findElement(By.cssSelector(css));
			if (!text.equals(input.getDomProperty("value"))) {
				input.clear();
				input.sendKeys(text);
			}
			return text.equals(d.findElement(By.cssSelector(css)).getDomProperty("value")) ? true : null;
		});
	}

	/** Selects the option of the given value in the select matching the selector, found again on each try. */
	void select(String css, String value) {
		until((d) -> {
			new Select(d.findElement(By.cssSelector(css))).selectByValue(value);
			return value.equals(d.findElement(By.cssSelector(css)).getDomProperty("value")) ? true : null;
		});
	}

	/**
	 * Clicks the element matching the selector and accepts the confirmation it asks for: clicked
	 * again (found again) until the confirmation shows, which is then accepted once.
	 */
	void clickAndConfirm(String css) {
		until((d) -> {
			Alert alert = alert(d);
			if (alert != null) {
				alert.accept();
				return true;
			}
			d.findElement(By.cssSelector(css)).click();
			return null;
		});
	}

	private static @Nullable Alert alert(WebDriver driver) {
		try {
			return driver.switchTo().alert();
		}
		catch (NoAlertPresentException ex) {
			return null;
		}
	}

	Object script(String script) {
		return this.driver.executeScript(script);
	}

	/** Saves a PNG of the page under {@link #SCREENSHOTS}. */
	Path screenshot(String name) {
		Path taken = this.driver.getScreenshotAs(OutputType.FILE).toPath();
		try {
			Files.createDirectories(SCREENSHOTS);
			Path target = SCREENSHOTS.resolve(name + ".png");
			Files.copy(taken, target, StandardCopyOption.REPLACE_EXISTING);
			return target;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		try {
			this.driver.quit();
		}
		finally {
			FileSystemUtils.deleteRecursively(this.profile.toFile());
		}
	}

}
