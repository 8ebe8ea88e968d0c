package io.switchboard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.cli.CliServer.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code switchboard workspaces workflows ...} against an in-process server. */
class WorkflowsCliTest {

  @RegisterExtension static final CliServer cli = new CliServer();

  @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir;

  private java.nio.file.Path readmeJson;

  @Test
  void workflows_putListShowDelete() throws Exception {
    readmeJson = dir.resolve("support.json"); // the README tour's file, as it is there
    java.nio.file.Files.writeString(
        readmeJson,
        """
        {"filters": [{"name": "billing", "expression": "topic = 'billing'",
                      "targets": [{"queue": "billing", "timeoutSeconds": 30}, {"queue": "general"}]}],
         "defaultFilter": {"targets": [{"queue": "general"}]}}
        """);
    assertEquals(0, cli.run("workspaces", "create", "centre", "--activity", "Ready=true").code());
    assertEquals(
        0,
        cli.run("workspaces", "queue", "centre", "billing", "--expression", "skills HAS 'billing'")
            .code());
    assertEquals(0, cli.run("workspaces", "queue", "centre", "general").code());
    Run put =
        cli.run(
            "workspaces",
            "workflows",
            "put",
            "centre",
            "support",
            "--body",
            "{\"filters\":[{\"name\":\"billing\",\"expression\":\"topic = 'billing'\","
                + "\"targets\":[{\"queue\":\"billing\",\"timeoutSeconds\":30},"
                + "{\"queue\":\"general\"}]}],"
                + "\"defaultFilter\":{\"targets\":[{\"queue\":\"general\"}]}}");
    assertEquals(0, put.code(), put.err());
    assertTrue(put.out().contains("billing 30 s -> general"), put.out());

    Run list = cli.run("workspaces", "workflows", "list", "centre");
    assertEquals(0, list.code(), list.err());
    assertTrue(list.out().contains("topic = 'billing'"), list.out());
    assertTrue(list.out().contains("(default)"), list.out());
    Run json = cli.run("workspaces", "workflows", "show", "centre", "support", "--json");
    assertEquals(0, json.code(), json.err());
    assertTrue(json.out().contains("\"timeoutSeconds\" : 30"), json.out());

    Run unknownQueue =
        cli.run(
            "workspaces",
            "workflows",
            "put",
            "centre",
            "w",
            "--body",
            "{\"defaultFilter\":{\"targets\":[{\"queue\":\"nope\"}]}}");
    assertTrue(unknownQueue.code() != 0, unknownQueue.out());
    assertTrue(unknownQueue.err().contains("TASK_QUEUE_NOT_FOUND"), unknownQueue.err());
    Run callback =
        cli.run(
            "workspaces",
            "workflows",
            "put",
            "centre",
            "called",
            "--body",
            "{\"defaultFilter\":{\"targets\":[{\"queue\":\"general\"}]},"
                + "\"assignmentCallbackUrl\":\"https://crm.example.com/offers\"}");
    assertEquals(0, callback.code(), callback.err());
    assertTrue(callback.out().contains("(assignment callback)"), callback.out());
    assertTrue(callback.out().contains("https://crm.example.com/offers"), callback.out());
    Run badUrl =
        cli.run(
            "workspaces",
            "workflows",
            "put",
            "centre",
            "called",
            "--body",
            "{\"defaultFilter\":{\"targets\":[{\"queue\":\"general\"}]},"
                + "\"assignmentCallbackUrl\":\"ftp://crm.example.com/offers\"}");
    assertTrue(badUrl.err().contains("INVALID_CALLBACK_URL"), badUrl.err());
    assertEquals(0, cli.run("workspaces", "workflows", "delete", "centre", "called").code());

    Run inUse = cli.run("workspaces", "delete-queue", "centre", "billing");
    assertTrue(inUse.err().contains("TASK_QUEUE_IN_USE"), inUse.err());

    Run fromFile =
        cli.run(
            "workspaces",
            "workflows",
            "put",
            "centre",
            "from-file",
            "--file",
            readmeJson.toString());
    assertEquals(0, fromFile.code(), fromFile.err());
    assertTrue(fromFile.out().contains("billing 30 s -> general"), fromFile.out());
    assertEquals(0, cli.run("workspaces", "workflows", "delete", "centre", "from-file").code());

    Run deleted = cli.run("workspaces", "workflows", "delete", "centre", "support");
    assertEquals(0, deleted.code(), deleted.err());
    assertTrue(
        cli.run("workspaces", "workflows", "list", "centre").out().contains("(no workflows)"));
    assertEquals(0, cli.run("workspaces", "delete", "centre").code());
  }
}
