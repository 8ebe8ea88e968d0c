package io.switchboard.server.sqs;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.switchboard.client.wire.Json;

/**
 * The SQS package's one plain JSON mapper: both protocols' requests read as trees, the answers'
 * trees made and written, and the policy documents and extension attributes parsed. Plain on
 * purpose (no binding, no naming strategy: the SQS field names are written as they are); records
 * bound to SQS answers have their own mapper ({@link SqsAnswers}). Its factory comes from {@link
 * Json#newFactory()}, so its buffers come from the shared pool.
 */
final class SqsJson {

  static final ObjectMapper MAPPER = new ObjectMapper(Json.newFactory());

  private SqsJson() {}
}
