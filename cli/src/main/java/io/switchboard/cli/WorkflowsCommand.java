package io.switchboard.cli;

import io.switchboard.client.WorkspacesClient;
import io.switchboard.client.wire.Json;
import io.switchboard.client.wire.WorkflowWire;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code switchboard workspaces workflows list|show|put|delete}: a workspace's workflows ({@code
 * docs/routing.md}, "Workspaces, queues and workflows"). A workflow is given as the JSON of {@code
 * PUT /v1/workspaces/{ws}/workflows/{name}}, inline or from a file.
 */
@Command(
    name = "workflows",
    description = "List, show, put and delete a workspace's workflows.",
    subcommands = {
      WorkflowsCommand.ListWorkflows.class,
      WorkflowsCommand.Show.class,
      WorkflowsCommand.Put.class,
      WorkflowsCommand.Delete.class
    })
final class WorkflowsCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** A command on one workspace's workflows. */
  abstract static class WorkflowCommand extends WorkspacesCommand.WorkspaceCommand {
    @Parameters(index = "0", paramLabel = "WORKSPACE")
    String workspace;

    void show(PrintWriter out, List<Workflow> workflows) {
      if (options.json) {
        Output.json(out, Json.tree(WorkflowWire.Workflows.of(workflows)));
        return;
      }
      if (workflows.isEmpty()) {
        out.println("(no workflows)");
        return;
      }
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("WORKFLOW", "FILTER", "EXPRESSION", "TARGETS"));
      for (Workflow w : workflows) {
        w.filters()
            .forEach(
                f -> rows.add(List.of(w.name(), f.name(), f.expression(), targets(f.targets()))));
        rows.add(List.of(w.name(), "(default)", "", targets(w.defaultTargets())));
        w.preferredAgent()
            .ifPresent(
                p ->
                    rows.add(
                        List.of(
                            w.name(),
                            "(preferred agent)",
                            "contact." + p.attribute(),
                            p.timeout().toSeconds() + " s")));
        w.assignmentCallback()
            .ifPresent(
                c ->
                    rows.add(
                        List.of(
                            w.name(),
                            "(assignment callback)",
                            c.url(),
                            c.timeout().toSeconds() + " s per attempt")));
      }
      Output.table(out, rows);
    }

    /** {@code billing[skills HAS contact.language] 30 s skip -> general}. */
    private static String targets(List<WorkflowTarget> targets) {
      List<String> parts = new ArrayList<>();
      for (WorkflowTarget t : targets) {
        StringBuilder s = new StringBuilder(t.queue());
        t.expression().ifPresent(e -> s.append('[').append(e).append(']'));
        t.priority().ifPresent(p -> s.append(" priority ").append(p));
        t.timeout().ifPresent(d -> s.append(' ').append(d.toSeconds()).append(" s"));
        if (t.skipIfNoneAvailable()) {
          s.append(" skip");
        }
        parts.add(s.toString());
      }
      return String.join(" -> ", parts);
    }
  }

  @Command(name = "list", description = "List a workspace's workflows.")
  static final class ListWorkflows extends WorkflowCommand {
    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      show(out, workspaces.workflows(workspace));
    }
  }

  @Command(name = "show", description = "Show a workflow.")
  static final class Show extends WorkflowCommand {
    @Parameters(index = "1", paramLabel = "WORKFLOW")
    String name;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      Workflow w = workspaces.workflow(workspace, name);
      if (options.json) {
        Output.json(out, Json.tree(WorkflowWire.WorkflowBody.of(w)));
      } else {
        show(out, List.of(w));
      }
    }
  }

  @Command(
      name = "put",
      description =
          "Add or replace a workflow, given as JSON: {\"filters\": [{\"name\", \"expression\","
              + " \"targets\": [{\"queue\", \"expression\", \"priority\", \"timeoutSeconds\","
              + " \"skipIfNoneAvailable\"}]}], \"defaultFilter\": {\"targets\": [...]},"
              + " \"preferredAgent\": {\"attribute\", \"timeoutSeconds\"}}.")
  static final class Put extends WorkflowCommand {
    @Parameters(index = "1", paramLabel = "WORKFLOW")
    String name;

    static final class Source {
      @Option(names = "--body", paramLabel = "JSON", description = "the workflow's JSON")
      @Nullable String json;

      @Option(names = "--file", paramLabel = "FILE", description = "a file holding the JSON")
      @Nullable Path file;
    }

    @ArgGroup(multiplicity = "1")
    Source source;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      byte[] body;
      try {
        body =
            source.json != null
                ? source.json.getBytes(StandardCharsets.UTF_8)
                : Files.readAllBytes(source.file);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + source.file, e);
      }
      Workflow w = Json.strict(body, "workflow", WorkflowWire.WorkflowBody.class).toWorkflow(name);
      Workflow stored = workspaces.putWorkflow(workspace, w);
      if (options.json) {
        Output.json(out, Json.tree(WorkflowWire.WorkflowBody.of(stored)));
      } else {
        show(out, List.of(stored));
      }
    }
  }

  @Command(
      name = "delete",
      description = "Remove a workflow (contacts it routed keep their route).")
  static final class Delete extends WorkflowCommand {
    @Parameters(index = "1", paramLabel = "WORKFLOW")
    String name;

    @Override
    void run(WorkspacesClient workspaces, PrintWriter out) {
      workspaces.removeWorkflow(workspace, name);
      out.println("removed workflow " + name);
    }
  }
}
