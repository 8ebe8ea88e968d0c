/**
 * The Amazon DynamoDB store: the table its engine keeps every queue in ({@code docs/design.md},
 * "Amazon DynamoDB as a store"). Uses the AWS SDK for Java v2's synchronous DynamoDB client, whose
 * jars declare the automatic module names required here (docs/decisions.md, 2026-11-26).
 */
@SuppressWarnings("requires-automatic")
module io.switchboard.storage.dynamodb {
  requires transitive io.switchboard.core;
  requires transitive software.amazon.awssdk.services.dynamodb;
  requires software.amazon.awssdk.core;
  requires software.amazon.awssdk.awscore;
  requires software.amazon.awssdk.regions;
  requires static org.jspecify;

  exports io.switchboard.storage.dynamodb;
}
