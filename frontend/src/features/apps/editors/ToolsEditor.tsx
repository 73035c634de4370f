import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineOutlinedIcon from '@mui/icons-material/DeleteOutlineOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';

import type { Tool } from '../types';
import { CommaListField } from './fields';
import { ParametersEditor } from './ToolParameters';

interface Props {
  value: Tool[];
  onChange: (next: Tool[]) => void;
  /** Field errors keyed as the API names them (`tools[0].id`, `tools[0].parameters.days.enum`). */
  errors?: Record<string, string>;
  disabled?: boolean;
}

/**
 * The AI tools editor (specification §3, §5): id, description, activation phrases entered
 * comma-separated (trimmed, empties dropped), and parameters keyed by name with a type (string, number,
 * boolean), a description, required, and allowed values for string parameters.
 */
export function ToolsEditor({ value, onChange, errors = {}, disabled = false }: Props) {
  const update = (index: number, next: Tool) => {
    onChange(value.map((t, i) => (i === index ? next : t)));
  };
  const listError = errors.tools;
  return (
    <Stack spacing={1.5}>
      {value.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No AI tools yet. Tools let the assistant call your app with a voice command.
        </Typography>
      ) : (
        <Stack component="ol" spacing={1.5} sx={{ listStyle: 'none', m: 0, p: 0 }}>
          {value.map((tool, index) => {
            const err = (field: string) => errors[`tools[${String(index)}].${field}`];
            const name = tool.id ? `tool "${tool.id}"` : `tool ${String(index + 1)}`;
            return (
              <Paper component="li" variant="outlined" key={index} sx={{ p: 1.5 }}>
                <Stack spacing={1.5}>
                  <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
                    <TextField
                      label="Tool id"
                      value={tool.id}
                      onChange={(e) => {
                        update(index, { ...tool, id: e.target.value });
                      }}
                      error={Boolean(err('id'))}
                      helperText={err('id') ?? 'Unique, letters and numbers, no spaces.'}
                      required
                      disabled={disabled}
                      sx={{ flex: 1 }}
                    />
                    <Box>
                      <IconButton
                        aria-label={`Remove ${name}`}
                        onClick={() => {
                          onChange(value.filter((_, i) => i !== index));
                        }}
                        disabled={disabled}
                      >
                        <DeleteOutlineOutlinedIcon />
                      </IconButton>
                    </Box>
                  </Stack>
                  <TextField
                    label="Tool description"
                    value={tool.description}
                    onChange={(e) => {
                      update(index, { ...tool, description: e.target.value });
                    }}
                    error={Boolean(err('description'))}
                    helperText={err('description')}
                    required
                    multiline
                    minRows={2}
                    disabled={disabled}
                  />
                  <CommaListField
                    label="Activation phrases"
                    value={tool.activationPhrases}
                    onChange={(phrases) => {
                      update(index, { ...tool, activationPhrases: phrases });
                    }}
                    error={Boolean(err('activationPhrases'))}
                    helperText={
                      err('activationPhrases') ??
                      'Comma-separated, e.g. "what is the weather, weather forecast".'
                    }
                    disabled={disabled}
                  />
                  <ParametersEditor
                    toolName={name}
                    parameters={tool.parameters}
                    onChange={(parameters) => {
                      update(index, { ...tool, parameters });
                    }}
                    err={err}
                    disabled={disabled}
                  />
                </Stack>
              </Paper>
            );
          })}
        </Stack>
      )}
      {listError && (
        <Typography color="error" variant="body2" role="alert">
          {listError}
        </Typography>
      )}
      <Box>
        <Button
          variant="outlined"
          startIcon={<AddIcon />}
          onClick={() => {
            onChange([
              ...value,
              { id: '', description: '', activationPhrases: [], parameters: {} },
            ]);
          }}
          disabled={disabled}
        >
          Add Tool
        </Button>
      </Box>
    </Stack>
  );
}
