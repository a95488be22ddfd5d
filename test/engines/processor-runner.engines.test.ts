/**
 * The processor runner on Kafka with the schema registry (the suite: test/processors/processor-runner.suite.ts).
 * Bytes written past the registry are not in the Confluent wire format: the adapter flags them.
 */
import { openKafkaEventLog } from '../../services/eventlog/kafka/kafka-event-log.js';
import { describeProcessorRunner } from '../processors/processor-runner.suite.js';
import { engineAddresses, uniqueName } from './engines.js';
import { openPipelineLog } from './pipeline-fixture.js';

describeProcessorRunner(
  'Kafka',
  async () => {
    const namespace = `${uniqueName('runner')}.`;
    const log = await openPipelineLog(namespace);
    const raw = await openKafkaEventLog({ brokers: [engineAddresses().kafkaBrokers], namespace });
    return {
      log,
      produceRaw: (topic, key, value) => raw.produce(topic, [{ key, value }]),
      close: async () => {
        await raw.close();
        await log.close();
      },
    };
  },
  60_000,
);
