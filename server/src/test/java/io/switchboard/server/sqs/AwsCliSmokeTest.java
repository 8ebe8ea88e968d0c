package io.switchboard.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The AWS CLI itself against an in-process server: the commands a person types first (create a
 * queue, send, receive, delete, read and change attributes, a FIFO batch) must work with nothing
 * but {@code --endpoint-url}. Runs the {@code aws} on PATH (Debian package {@code awscli}, which
 * {@code .ci/run} installs) with the server's one access key in its environment (so every signature
 * is checked) and a temporary HOME and config, so nothing of the machine's {@code ~/.aws} is read;
 * skipped when there is no working {@code aws}.
 */
class AwsCliSmokeTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static SqsServer fixture;
  private static String aws;

  @TempDir static Path home;

  @BeforeAll
  static void start() throws Exception {
    Optional<String> found = findAws();
    Assumptions.assumeTrue(
        found.isPresent(),
        "AwsCliSmokeTest skipped: no working `aws` on PATH; install the Debian package awscli"
            + " (apt-get install awscli) to run it");
    aws = found.get();
    Files.writeString(home.resolve("config"), "[default]\noutput = json\n");
    Files.writeString(home.resolve("credentials"), "");
    // with the CLI's key configured, so every command's signature is verified: the CLI signs
    // host and, on the JSON protocol, x-amz-target, which the server requires
    fixture =
        new SqsServer(
            io.switchboard.server.config.ServerConfig.forTests()
                .withAccessKeys(io.switchboard.server.auth.AccessKeys.parse("fake:fake")));
  }

  @AfterAll
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  /** The first {@code aws} on PATH that answers {@code --version}. */
  private static Optional<String> findAws() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "aws");
      if (Files.isExecutable(candidate)) {
        try {
          Result r = run(candidate.toString(), "us-east-1", List.of("--version"));
          if (r.exit() == 0) {
            return Optional.of(candidate.toString());
          }
        } catch (IOException e) {
          // not runnable: try the next
        }
      }
    }
    return Optional.empty();
  }

  private record Result(int exit, String out, String err) {}

  private static Result run(String binary, String region, List<String> args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(binary);
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command);
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("AWS_"));
    env.put("HOME", home.toString());
    env.put("AWS_CONFIG_FILE", home.resolve("config").toString());
    env.put("AWS_SHARED_CREDENTIALS_FILE", home.resolve("credentials").toString());
    env.put("AWS_ACCESS_KEY_ID", "fake");
    env.put("AWS_SECRET_ACCESS_KEY", "fake");
    env.put("AWS_DEFAULT_REGION", region);
    env.put("AWS_PAGER", "");
    env.put("AWS_CLI_AUTO_PROMPT", "off");
    env.put("AWS_EC2_METADATA_DISABLED", "true");
    pb.directory(home.toFile());
    Path out = Files.createTempFile(home, "out", ".txt");
    Path err = Files.createTempFile(home, "err", ".txt");
    pb.redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Process p = pb.start();
    try {
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("aws " + args + " did not finish in 120 s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    Result r =
        new Result(
            p.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    Files.delete(out);
    Files.delete(err);
    return r;
  }

  /** Runs {@code aws sqs <args>} against the server; its JSON output (empty object for none). */
  private static JsonNode sqsIn(String region, String... args) throws IOException {
    List<String> all = new ArrayList<>(List.of("sqs"));
    all.addAll(List.of(args));
    all.addAll(List.of("--endpoint-url", fixture.server.uri().toString(), "--output", "json"));
    Result r = run(aws, region, all);
    assertEquals(0, r.exit(), "aws " + all + " failed: " + r.err() + r.out());
    return r.out().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.out());
  }

  private static JsonNode sqs(String... args) throws IOException {
    return sqsIn("us-east-1", args);
  }

  @Test
  void standardQueue_createSendReceiveDelete_andAttributes() throws Exception {
    String url = sqs("create-queue", "--queue-name", "cli-smoke").get("QueueUrl").asText();
    assertEquals(fixture.url("cli-smoke"), url);

    sqs("set-queue-attributes", "--queue-url", url, "--attributes", "VisibilityTimeout=45");
    JsonNode attrs =
        sqs("get-queue-attributes", "--queue-url", url, "--attribute-names", "All")
            .get("Attributes");
    assertEquals("45", attrs.get("VisibilityTimeout").asText());
    assertEquals("arn:aws:sqs:us-east-1:000000000000:cli-smoke", attrs.get("QueueArn").asText());

    JsonNode sent =
        sqs(
            "send-message",
            "--queue-url",
            url,
            "--message-body",
            "hello from the cli",
            "--message-attributes",
            "{\"tier\":{\"DataType\":\"String\",\"StringValue\":\"gold\"}}");
    assertEquals(MessageMd5.body("hello from the cli"), sent.get("MD5OfMessageBody").asText());

    JsonNode received =
        sqs(
                "receive-message",
                "--queue-url",
                url,
                "--message-attribute-names",
                "All",
                "--attribute-names",
                "All")
            .get("Messages")
            .get(0);
    assertEquals(sent.get("MessageId").asText(), received.get("MessageId").asText());
    assertEquals("hello from the cli", received.get("Body").asText());
    assertEquals("gold", received.get("MessageAttributes").get("tier").get("StringValue").asText());
    assertEquals("1", received.get("Attributes").get("ApproximateReceiveCount").asText());

    sqs(
        "delete-message",
        "--queue-url",
        url,
        "--receipt-handle",
        received.get("ReceiptHandle").asText());
    JsonNode counts =
        sqs(
                "get-queue-attributes",
                "--queue-url",
                url,
                "--attribute-names",
                "ApproximateNumberOfMessages",
                "ApproximateNumberOfMessagesNotVisible")
            .get("Attributes");
    assertEquals("0", counts.get("ApproximateNumberOfMessages").asText());
    assertEquals("0", counts.get("ApproximateNumberOfMessagesNotVisible").asText());
  }

  /** What botocore shows where Switchboard's answers used to differ from SQS's (docs/sqs.md). */
  @Test
  void emptyReceive_hasNoMessagesKey_andAnErrorShowsTheQueryCode() throws Exception {
    String url = sqs("create-queue", "--queue-name", "cli-shapes").get("QueueUrl").asText();
    assertFalse(sqs("receive-message", "--queue-url", url).has("Messages"));
    Result r =
        run(
            aws,
            "us-east-1",
            List.of(
                "sqs",
                "send-message",
                "--queue-url",
                url,
                "--message-body",
                "",
                "--endpoint-url",
                fixture.server.uri().toString()));
    assertNotEquals(0, r.exit(), r.out());
    assertTrue(r.err().contains("(MissingParameter)"), r.err());
    assertTrue(r.err().contains("The request must contain the parameter MessageBody."), r.err());
  }

  @Test
  void fifoQueue_sendMessageBatch_receivedInOrder() throws Exception {
    String url =
        sqs(
                "create-queue",
                "--queue-name",
                "cli-smoke.fifo",
                "--attributes",
                "FifoQueue=true,ContentBasedDeduplication=true")
            .get("QueueUrl")
            .asText();
    JsonNode batch =
        sqs(
            "send-message-batch",
            "--queue-url",
            url,
            "--entries",
            "[{\"Id\":\"1\",\"MessageBody\":\"first\",\"MessageGroupId\":\"g\"},"
                + "{\"Id\":\"2\",\"MessageBody\":\"second\",\"MessageGroupId\":\"g\"}]");
    assertEquals(2, batch.get("Successful").size(), batch.toString());
    assertTrue(batch.path("Failed").isEmpty(), batch.toString());
    List<String> bodies = new ArrayList<>();
    sqs("receive-message", "--queue-url", url, "--max-number-of-messages", "10")
        .get("Messages")
        .forEach(m -> bodies.add(m.get("Body").asText()));
    assertEquals(List.of("first", "second"), bodies);
  }

  @Test
  void region_fromAwsDefaultRegion_keepsQueuesApart() throws Exception {
    String url =
        sqsIn("eu-west-1", "create-queue", "--queue-name", "cli-regional").get("QueueUrl").asText();
    assertEquals(
        fixture.server.uri() + "/queue/eu-west-1/000000000000/cli-regional", url, "queue URL");
    sqsIn("eu-west-1", "send-message", "--queue-url", url, "--message-body", "eu");
    JsonNode listed = sqs("list-queues", "--queue-name-prefix", "cli-regional");
    assertTrue(listed.path("QueueUrls").isEmpty(), "us-east-1 lists no eu-west-1 queue: " + listed);
    assertEquals(
        "eu",
        sqsIn("eu-west-1", "receive-message", "--queue-url", url)
            .get("Messages")
            .get(0)
            .get("Body")
            .asText());
  }

  /** botocore's model requires both lists: {@code resp["Successful"]} with every entry failed. */
  @Test
  void batchEveryEntryFailed_showsAnEmptySuccessfulList() throws Exception {
    String url = sqs("create-queue", "--queue-name", "cli-batch-failed").get("QueueUrl").asText();
    JsonNode deleted =
        sqs(
            "delete-message-batch",
            "--queue-url",
            url,
            "--entries",
            "[{\"Id\":\"a\",\"ReceiptHandle\":\"junk\"}]");
    assertTrue(deleted.has("Successful"), deleted.toString());
    assertEquals(0, deleted.get("Successful").size(), deleted.toString());
    assertEquals(
        "ReceiptHandleIsInvalid",
        deleted.get("Failed").get(0).get("Code").asText(),
        deleted.toString());
  }
}
