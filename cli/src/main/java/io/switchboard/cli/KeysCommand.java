package io.switchboard.cli;

import io.switchboard.client.KeyWire;
import io.switchboard.client.SwitchboardClient;
import io.switchboard.client.wire.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code switchboard keys create|list|revoke}: the server's access keys. */
@Command(
    name = "keys",
    description = "Create, list and revoke the server's access keys.",
    subcommands = {KeysCommand.Create.class, KeysCommand.ListKeys.class, KeysCommand.Revoke.class})
final class KeysCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "create",
      description =
          "Create an access key; prints its id and its secret, which the server never shows again.")
  static final class Create extends QueuesCommand.ClientCommand {
    @Option(names = "--name", paramLabel = "NAME", description = "what the key is for")
    @Nullable String name;

    @Option(
        names = "--grant",
        paramLabel = "ACTIONS=RESOURCE",
        required = true,
        description =
            "actions (comma-separated: queue:send, queue:receive, queue:browse, queue:admin,"
                + " routing:agent, routing:supervisor, metrics:read, admin) on a resource"
                + " (a queue-name glob, a routing workspace, or *); repeatable."
                + " E.g. queue:send,queue:receive=orders-*")
    List<String> grants;

    @Option(
        names = "--agent",
        paramLabel = "AGENT",
        description = "the routing agent the key acts as (required with routing:agent)")
    @Nullable String agent;

    @Option(
        names = "--account",
        paramLabel = "ACCOUNT",
        description =
            "the 12-digit AWS account id SQS queue policies see the key as (default: the"
                + " server's sqs-account-id)")
    @Nullable String account;

    @Override
    void run(SwitchboardClient client) {
      KeyWire.AccessKey k =
          client.createKey(new KeyWire.CreateKey(name, parse(grants), agent, account));
      if (options.json) {
        Output.json(out(), Json.tree(k));
      } else {
        out().println("access key id:     " + k.accessKeyId());
        out().println("secret access key: " + k.secretAccessKey());
        out().println("(the secret is shown this once: store it now)");
      }
    }
  }

  /** {@code ACTIONS=RESOURCE} each; refuses one without {@code =} or with an empty side. */
  static List<KeyWire.Grant> parse(List<String> specs) {
    List<KeyWire.Grant> out = new ArrayList<>();
    for (String spec : specs) {
      int eq = spec.indexOf('=');
      if (eq <= 0 || eq == spec.length() - 1) {
        throw new IllegalArgumentException(
            "--grant must be ACTIONS=RESOURCE (e.g. queue:send,queue:receive=orders-*), got '"
                + spec
                + "'");
      }
      List<String> actions =
          Arrays.stream(spec.substring(0, eq).split(",")).map(String::strip).toList();
      out.add(new KeyWire.Grant(actions, spec.substring(eq + 1).strip()));
    }
    return out;
  }

  @Command(name = "list", description = "The access keys (never their secrets).")
  static final class ListKeys extends QueuesCommand.ClientCommand {
    @Override
    void run(SwitchboardClient client) {
      List<KeyWire.AccessKey> keys = client.listKeys();
      if (options.json) {
        Output.json(out(), Json.tree(new KeyWire.KeyList(keys)));
      } else if (keys.isEmpty()) {
        out().println("(no access keys)");
      } else {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("ID", "NAME", "GRANTS", "AGENT", "ACCOUNT", "CREATED"));
        for (KeyWire.AccessKey k : keys) {
          rows.add(
              List.of(
                  k.accessKeyId(),
                  k.name() == null ? "-" : k.name(),
                  String.join(
                      " ",
                      k.grants().stream()
                          .map(g -> String.join(",", g.actions()) + "=" + g.resource())
                          .toList()),
                  k.agent() == null ? "-" : k.agent(),
                  k.account() == null ? "-" : k.account(),
                  k.createdAt() == null ? "configured" : k.createdAt()));
        }
        Output.table(out(), rows);
      }
    }
  }

  @Command(name = "revoke", description = "Revoke the access key ID.")
  static final class Revoke extends QueuesCommand.ClientCommand {
    @Parameters(paramLabel = "ID")
    String id;

    @Override
    void run(SwitchboardClient client) {
      client.revokeKey(id);
      if (!options.json) {
        out().println("revoked " + id);
      }
    }
  }
}
