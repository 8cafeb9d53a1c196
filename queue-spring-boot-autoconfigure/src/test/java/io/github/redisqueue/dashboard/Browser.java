package io.github.redisqueue.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.function.Function;

import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
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

	private static final Duration WAIT = Duration.ofSeconds(15);

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

	/** Waits until the condition gives a non-null, non-false value, then returns it. */
	<T> T until(Function<WebDriver, T> condition) {
		return new WebDriverWait(this.driver, WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
			.ignoring(org.openqa.selenium.NoSuchElementException.class)
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

	/** Clicks the element matching the selector (found again if the page redrew it meanwhile). */
	void click(String css) {
		until((d) -> {
			d.findElement(By.cssSelector(css)).click();
			return true;
		});
	}

	/** Clicks the element matching the selector and accepts the confirmation it asks for. */
	void clickAndConfirm(String css) {
		click(css);
		until((d) -> {
			try {
				d.switchTo().alert().accept();
				return true;
			}
			catch (org.openqa.selenium.NoAlertPresentException ex) {
				return null;
			}
		});
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
