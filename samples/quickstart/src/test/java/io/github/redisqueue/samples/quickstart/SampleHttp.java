package io.github.redisqueue.samples.quickstart;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** The two HTTP calls the quickstart's tests make against a running application. */
final class SampleHttp {

	private final HttpClient http = HttpClient.newHttpClient();

	HttpResponse<String> post(String url, String json) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(url))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	String get(String url) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
			.body();
	}

}
