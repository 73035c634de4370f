import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { renderWithProviders } from '../../testing/render';
import { testPublicConfig } from '../../testing/handlers';
import { server } from '../../testing/server';
import { DEFAULT_PUBLIC_CONFIG, publicConfigApi } from '../publicConfig';
import { LandingPage } from './LandingPage';

const link = (name: RegExp) => screen.getByRole('link', { name });

describe('LandingPage', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('has header, main and footer landmarks, one h1 and a described hero image', () => {
    renderWithProviders(<LandingPage />);

    expect(screen.getByRole('banner')).toBeInTheDocument();
    expect(screen.getByRole('main')).toBeInTheDocument();
    expect(screen.getByRole('contentinfo')).toBeInTheDocument();
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
    expect(screen.getByRole('img', { name: /smart glasses/i })).toBeInTheDocument();
    expect(within(screen.getByRole('banner')).getByText('Developer Portal')).toBeInTheDocument();
  });

  it('shows the headline and the sub-line', () => {
    renderWithProviders(<LandingPage />);

    expect(
      screen.getByRole('heading', {
        level: 1,
        name: 'The best way to build apps for smart glasses',
      }),
    ).toBeInTheDocument();
    expect(
      screen.getByText('Build and deploy your own apps in minutes, not months.'),
    ).toBeInTheDocument();
  });

  it('lists the three steps in order: Register, Create, Code', () => {
    renderWithProviders(<LandingPage />);

    const section = screen.getByRole('region', { name: 'Get started in three steps' });
    const steps = within(section).getAllByRole('listitem');
    expect(steps.map((step) => within(step).getByRole('heading').textContent)).toEqual([
      'Register',
      'Create',
      'Code',
    ]);
    expect(steps[0]).toHaveTextContent('Create a free developer account.');
    expect(steps[1]).toHaveTextContent('Define your app using a simple web interface.');
    expect(steps[2]).toHaveTextContent(/TypeScript SDK/);
  });

  it('sends Sign In and Developer Console to /signin', async () => {
    const { router, user } = renderWithProviders(<LandingPage />);

    expect(link(/^Sign In$/)).toHaveAttribute('href', '/signin');
    expect(link(/^Developer Console$/)).toHaveAttribute('href', '/signin');

    await user.click(link(/^Developer Console$/));
    expect(router.state.location.pathname).toBe('/signin');
  });

  it('takes the external links from the server configuration', async () => {
    renderWithProviders(<LandingPage />);

    await waitFor(() => {
      expect(link(/^View Documentation/)).toHaveAttribute('href', testPublicConfig.docsUrl);
    });
    expect(link(/^Open source/)).toHaveAttribute('href', testPublicConfig.sourceUrl);

    const resources = within(screen.getByRole('navigation', { name: 'Resources' }));
    expect(resources.getByRole('link', { name: /^Documentation/ })).toHaveAttribute(
      'href',
      testPublicConfig.docsUrl,
    );
    expect(resources.getByRole('link', { name: /^Example App/ })).toHaveAttribute(
      'href',
      testPublicConfig.exampleAppUrl,
    );
    expect(resources.getByRole('link', { name: /^Main Repository/ })).toHaveAttribute(
      'href',
      testPublicConfig.sourceUrl,
    );
  });

  it('opens external links in a new tab and says so to screen readers', async () => {
    renderWithProviders(<LandingPage />);

    const docs = await screen.findByRole('link', { name: /^View Documentation/ });
    expect(docs).toHaveAttribute('target', '_blank');
    expect(docs).toHaveAttribute('rel', 'noopener noreferrer');
    expect(docs).toHaveAccessibleName('View Documentation (opens in a new tab)');
  });

  it('uses the default links while loading and when the configuration cannot be fetched', async () => {
    server.use(
      http.get('*/api/public-config', () =>
        HttpResponse.json({ error: 'Internal error', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    const { store } = renderWithProviders(<LandingPage />);

    expect(link(/^View Documentation/)).toHaveAttribute('href', DEFAULT_PUBLIC_CONFIG.docsUrl);
    await waitFor(() => {
      expect(publicConfigApi.endpoints.getPublicConfig.select()(store.getState()).isError).toBe(
        true,
      );
    });
    expect(link(/^View Documentation/)).toHaveAttribute('href', DEFAULT_PUBLIC_CONFIG.docsUrl);
    expect(link(/^Open source/)).toHaveAttribute('href', DEFAULT_PUBLIC_CONFIG.sourceUrl);
    expect(link(/^Example App/)).toHaveAttribute('href', DEFAULT_PUBLIC_CONFIG.exampleAppUrl);
  });

  it('describes the product in the footer with a copyright line of the current year', () => {
    renderWithProviders(<LandingPage />);

    const footer = within(screen.getByRole('contentinfo'));
    expect(
      footer.getByText(/the open source operating system for smart glasses/i),
    ).toBeInTheDocument();
    expect(footer.getByText(new RegExp(`© ${new Date().getFullYear()} `))).toBeInTheDocument();
  });

  it('computes the copyright year from the clock', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2031-07-01T12:00:00Z'));
    renderWithProviders(<LandingPage />);

    expect(within(screen.getByRole('contentinfo')).getByText(/© 2031 /)).toBeInTheDocument();
  });
});
