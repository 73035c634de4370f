import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { QRCodeSVG } from 'qrcode.react';

/**
 * A QR code of an install link (issue 25, item 12): a glasses user holds a phone, so the tester page and
 * the share dialog offer the link as a code to scan. Dark on white in both colour schemes, with the quiet
 * zone scanners need; the link itself is the code's accessible name.
 */
export function InstallQrCode({ url, caption }: { url: string; caption: string }) {
  return (
    <Box
      component="figure"
      sx={{ m: 0, display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1 }}
    >
      <Box
        data-testid="install-qr"
        data-url={url}
        sx={{ bgcolor: '#fff', borderRadius: 1, lineHeight: 0, border: 1, borderColor: 'divider' }}
      >
        <QRCodeSVG
          value={url}
          size={168}
          level="M"
          marginSize={4}
          bgColor="#ffffff"
          fgColor="#000000"
          title={`QR code of ${url}`}
          role="img"
          aria-label={`QR code of ${url}`}
        />
      </Box>
      <Typography
        component="figcaption"
        variant="body2"
        sx={{ color: 'text.secondary', textAlign: 'center', maxWidth: 240 }}
      >
        {caption}
      </Typography>
    </Box>
  );
}
