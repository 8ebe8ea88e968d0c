package io.switchboard.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard and the Prometheus alert rules in {@code docs/ops/} use only metrics that a
 * server's {@code /metrics} serves: a server from the archive gets some queue and routing traffic,
 * then every metric name in every PromQL expression must be in its exposition (docs/ops/README.md).
 * A renamed metric fails this test instead of leaving an empty panel or an alert that can never
 * fire.
 */
class OpsDocsIT {

  /** Recorded by Prometheus per scrape target, not served by the server. */
  private static final Set<String> PROMETHEUS_OWN = Set.of("up");

  private static final Path OPS = Path.of(System.getProperty("switchboard.docs"), "ops");

  @TempDir static Path dir;
  static Unpacked.Server server;
  static Set<String> served;

  @BeforeAll
  static void startAServerWithTraffic() throws Exception {
    Unpacked unpacked = Unpacked.tarGz(dir);
    server =
        Unpacked.Server.start(
            unpacked.home,
            Unpacked.javaHome(),
            List.of(
                unpacked.home.resolve("bin/switchboard").toString(),
                "server",
                "--port",
                "0",
                "--in-memory"));
    post("/v1/queues", "{\"name\":\"ops-jobs-dlq\"}");
    post(
        "/v1/queues",
        "{\"name\":\"ops-jobs\",\"deadLetter\":{\"target\":\"ops-jobs-dlq\",\"maxReceiveCount\":1}}");
    post("/v1/queues/ops-jobs/messages", "{\"body\":\"one\"}");
    post("/v1/queues/ops-jobs/messages", "{\"body\":\"two\"}");
    post("/v1/queues/ops-jobs/receive", "{\"maxMessages\":1}");
    post(
        "/v1/routing/agents",
        "{\"id\":\"ops-a1\",\"capacity\":{\"voice\":1},\"presence\":\"available\"}");
    post("/v1/routing/contacts", "{\"id\":\"ops-c1\",\"channel\":\"voice\"}");
    post("/v1/routing/contacts", "{\"id\":\"ops-c2\",\"channel\":\"voice\"}");
    served = metricNames(server.get("/metrics"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void everyMetricOfTheDashboardIsServed() throws Exception {
    JsonNode dashboard =
        new ObjectMapper().readTree(OPS.resolve("grafana-dashboard.json").toFile());
    Map<String, String> expressions = new LinkedHashMap<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        expressions.put(
            panel.path("title").asText() + " " + target.path("refId").asText(),
            target.path("expr").asText());
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      JsonNode query = variable.path("query");
      if (query.isObject()) {
        expressions.put("variable " + variable.path("name").asText(), query.path("query").asText());
      }
    }
    assertTrue(expressions.size() > 20, expressions.toString());
    assertServed(expressions);
  }

  @Test
  void everyMetricOfTheAlertRulesIsServed() throws Exception {
    JsonNode rules = new YAMLMapper().readTree(OPS.resolve("alerts.yml").toFile());
    Map<String, String> expressions = new LinkedHashMap<>();
    for (JsonNode group : rules.path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        expressions.put(rule.path("alert").asText(), rule.path("expr").asText());
      }
    }
    assertTrue(
        expressions
            .keySet()
            .containsAll(
                List.of(
                    "SwitchboardDeadLettersGrowing",
                    "SwitchboardOldestMessageTooOld",
                    "SwitchboardServiceLevelLow",
                    "SwitchboardStoreFailing")),
        expressions.keySet().toString());
    assertServed(expressions);
  }

  /** The reader of PromQL below finds what it should, and nothing else. */
  @Test
  void theExpressionReaderFindsMetricNamesOnly() {
    assertEquals(
        Set.of("a_total", "b_bucket", "c"),
        metricsOf(
            "sum by (le, queue) (rate(a_total{queue=~\"$queue\",event=\"x\"}[$__rate_interval]))"
                + " / on (instance) group_left histogram_quantile(0.99, b_bucket offset 5m) > bool"
                + " 0.5 and c unless label_values(c, queue)"));
  }

  private static void assertServed(Map<String, String> expressions) {
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, String> e : expressions.entrySet()) {
      Set<String> names = metricsOf(e.getValue());
      assertFalse(names.isEmpty(), e.getKey() + " uses no metric: " + e.getValue());
      for (String name : names) {
        if (!served.contains(name) && !PROMETHEUS_OWN.contains(name)) {
          missing.add(e.getKey() + ": " + name);
        }
      }
    }
    assertTrue(missing.isEmpty(), "not on /metrics: " + missing + "\nserved: " + served);
  }

  private static final Set<String> PROMQL_WORDS =
      Set.of(
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "and",
          "or",
          "unless",
          "bool",
          "offset",
          "atan2",
          "inf",
          "nan");

  /** The metric names of a PromQL expression (or a Grafana label_values query). */
  static Set<String> metricsOf(String expr) {
    String s = expr.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\""); // strings
    s = s.replaceAll("\\{[^}]*\\}", " "); // label matchers
    s = s.replaceAll("\\[[^\\]]*\\]", " "); // ranges
    s = s.replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
    s = s.replaceAll("label_values\\(([^,()]+),[^)]*\\)", "$1"); // Grafana: (metric, label)
    s = s.replaceAll("\\boffset\\s+\\w+", " ");
    Set<String> names = new TreeSet<>();
    Matcher m = Pattern.compile("([A-Za-z_:][A-Za-z0-9_:]*)(\\s*\\()?").matcher(s);
    while (m.find()) {
      boolean call = m.group(2) != null;
      String word = m.group(1);
      if (!call && !PROMQL_WORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
        names.add(word);
      }
    }
    return names;
  }

  /** The metric names of a Prometheus text exposition (series, not just HELP/TYPE lines). */
  static Set<String> metricNames(String exposition) {
    Set<String> names = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        names.add(line.split("[{ ]", 2)[0]);
      }
    }
    return names;
  }

  private static void post(String path, String json) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create(server.url + path))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(json))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertTrue(answer.statusCode() / 100 == 2, path + " " + json + ": " + answer.body());
    }
  }
}
