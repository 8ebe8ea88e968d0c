package io.switchboard.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code bench/run.sh} names every entry point, and each name leads to a runnable main class. */
class RunScriptTest {

  @Test
  void everyListedEntryIsAMainClass_andEveryReportingEntryIsListed() throws Exception {
    Path script = Path.of("run.sh");
    assertTrue(Files.isRegularFile(script), "run from the bench module directory");
    Process p =
        new ProcessBuilder("bash", script.toString(), "list").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    List<String> names = out.lines().map(l -> l.split("\\s+")[0]).toList();
    assertEquals(
        List.of(
            "engine",
            "sqs",
            "native-e2e",
            "filtered",
            "durable",
            "recovery",
            "backlog",
            "backlog-filtered",
            "churn",
            "routing",
            "heap",
            "postgres",
            "caps",
            "selector-stall",
            "auth",
            "auth-step",
            "fair-queue",
            "http-stacks",
            "queues",
            "queues-server",
            "workqueue",
            "push",
            "dynamodb"),
        names,
        out);
    for (String line : out.lines().toList()) {
      Class<?> main = Class.forName(line.split("\\s+")[1]);
      Method m = main.getMethod("main", String[].class);
      assertTrue(Modifier.isStatic(m.getModifiers()), line);
    }
  }

  @Test
  void unknownNameIsRefusedWithTheList() throws Exception {
    Process p = new ProcessBuilder("bash", "run.sh", "nope").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(2, p.exitValue(), out);
    assertTrue(out.contains("unknown benchmark 'nope'") && out.contains("names: engine sqs"), out);
  }
}
